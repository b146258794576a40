// Imported rather than read at run time: the build (tsc, rootDir ".") emits it beside dist/src, so the same path works there.
import packageJson from '../../package.json';

/** Who the service says it is to the outside: the OpenAPI document's title and version, and the User-Agent of every vendor request. */
export const SERVICE_NAME = 'Flowbase';
export const SERVICE_VERSION: string = packageJson.version;

/**
 * GitHub refuses requests without a User-Agent and asks for one naming the
 * application (https://docs.github.com/rest/using-the-rest-api/getting-started-with-the-rest-api#user-agent);
 * Twilio and HubSpot ask for nothing, but every vendor's support reads it when
 * tracing a misbehaving client.
 */
export const SERVICE_USER_AGENT = `${SERVICE_NAME}/${SERVICE_VERSION} (data feeds and connections)`;

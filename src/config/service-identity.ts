/**
 * Who the service says it is to the outside: the OpenAPI document's version
 * and the User-Agent of every request to a vendor. A test keeps the version
 * equal to package.json's (the build does not ship package.json).
 */
export const SERVICE_NAME = 'Flowbase';
export const SERVICE_VERSION = '0.1.0';

/**
 * GitHub refuses requests without a User-Agent and asks for one naming the
 * application (https://docs.github.com/rest/using-the-rest-api/getting-started-with-the-rest-api#user-agent);
 * Twilio and HubSpot ask for nothing, but every vendor's support reads it when
 * tracing a misbehaving client.
 */
export const SERVICE_USER_AGENT = `${SERVICE_NAME}/${SERVICE_VERSION} (data feeds and connections)`;

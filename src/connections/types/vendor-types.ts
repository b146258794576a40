import { type JsonSchema, secret, strictObject, text, url } from './json-schema';

/** The fields every vendor OAuth connection holds once a user has authorized it. */
function oauth(title: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return strictObject(
    title,
    {
      clientId: text('OAuth client id'),
      clientSecret: secret('OAuth client secret'),
      accessToken: secret('Current access token'),
      refreshToken: secret('Refresh token'),
      expiresAt: { type: 'string', format: 'date-time', description: 'When the access token expires' },
      scopes: { type: 'array', items: { type: 'string' }, default: [] },
      ...extra,
    },
    ['clientId', 'clientSecret', 'refreshToken'],
  );
}

/** Eleven vendor and identity-provider types (interface.md 2.3 leaves their identifiers to us). */
export const VENDOR_TYPES: Record<string, JsonSchema> = {
  twilio: strictObject('Twilio (voice platform)', { accountSid: text('Account SID', { pattern: '^AC[0-9a-fA-F]{32}$' }), authToken: secret('Auth token') }, [
    'accountSid',
    'authToken',
  ]),
  'aws-credentials': strictObject(
    'AWS access key (cloud credential)',
    {
      accessKeyId: text('Access key id', { pattern: '^[A-Z0-9]{16,128}$' }),
      secretAccessKey: secret('Secret access key'),
      sessionToken: secret('Session token, for temporary credentials'),
      region: text('Default region', { pattern: '^[a-z]{2}(-[a-z]+)+-\\d$' }),
    },
    ['accessKeyId', 'secretAccessKey'],
  ),
  'gcp-service-account': strictObject(
    'Google Cloud service account (cloud credential)',
    {
      projectId: text('Project id'),
      clientEmail: { type: 'string', format: 'email' },
      privateKey: secret('PEM private key of the service account'),
    },
    ['projectId', 'clientEmail', 'privateKey'],
  ),
  'google-oauth': oauth('Google (mail and calendar, OAuth)'),
  'microsoft-oauth': oauth('Microsoft 365 (mail and calendar, OAuth)', { tenantId: { type: 'string', minLength: 1, default: 'common' } }),
  'github-oauth': oauth('GitHub (source hosting, OAuth)'),
  'gitlab-oauth': oauth('GitLab (source hosting, OAuth)', { baseUrl: url('GitLab instance', { default: 'https://gitlab.com' }) }),
  'slack-oauth': oauth('Slack (chat, OAuth)', { teamId: text('Workspace id') }),
  'zoom-oauth': oauth('Zoom (video meetings, OAuth)', { accountId: text('Account id') }),
  'salesforce-oauth': oauth('Salesforce (CRM, OAuth)', { instanceUrl: url('Instance URL') }),
  'hubspot-oauth': oauth('HubSpot (CRM, OAuth)', { portalId: text('Portal id') }),
};

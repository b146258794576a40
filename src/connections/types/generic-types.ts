import { type JsonSchema, port, secret, strictObject, text, url, variants } from './json-schema';
import { WEBHOOK_SIGNING } from './webhook-signing';

/** The eight generic connection types of interface.md 2.3, and `webhook-signing`, which signs outbound requests. */
export const GENERIC_TYPES: Record<string, JsonSchema> = {
  'api-key': strictObject(
    'API key',
    {
      apiKey: secret('The key sent with each request'),
      headerName: { type: 'string', minLength: 1, maxLength: 200, default: 'Authorization', description: 'Header that carries the key' },
      prefix: { type: 'string', maxLength: 200, default: 'Bearer', description: 'Text put before the key, separated by a space' },
    },
    ['apiKey'],
  ),
  'basic-auth': strictObject('HTTP basic authentication', { username: text('User name'), password: secret('Password') }, ['username', 'password']),
  database: strictObject(
    'Database',
    {
      engine: { type: 'string', enum: ['postgres', 'mysql', 'mariadb', 'mssql', 'oracle', 'mongodb'], description: 'Database engine' },
      host: text('Host name or address'),
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      database: text('Database name'),
      username: text('User name'),
      password: secret('Password'),
      ssl: { type: 'boolean', default: false },
    },
    ['engine', 'host', 'database', 'username', 'password'],
  ),
  sftp: strictObject(
    'SFTP',
    {
      host: text('Host name or address'),
      port: port(22),
      username: text('User name'),
      password: secret('Password (or use privateKey)'),
      privateKey: secret('PEM private key (or use password)'),
      passphrase: secret('Passphrase of the private key'),
    },
    ['host', 'username'],
    { anyOf: [{ required: ['password'] }, { required: ['privateKey'] }] },
  ),
  smtp: strictObject(
    'SMTP',
    {
      host: text('Host name or address'),
      port: port(587),
      secure: { type: 'boolean', default: false, description: 'TLS from the first byte (port 465)' },
      username: text('User name'),
      password: secret('Password'),
      from: { type: 'string', format: 'email', description: 'Default sender address' },
    },
    ['host', 'username', 'password'],
  ),
  custom: {
    ...strictObject('Custom credentials', {}, []),
    description: 'Any named string values, e.g. {"token": "…", "region": "…"}. All values are treated as secrets.',
    additionalProperties: { type: 'string', maxLength: 20_000, writeOnly: true },
    minProperties: 1,
  },
  'form-auth': variants('Form login', {
    password: {
      properties: {
        loginUrl: url('URL of the login form'),
        username: text('User name'),
        password: secret('Password'),
        usernameField: { type: 'string', minLength: 1, default: 'username' },
        passwordField: { type: 'string', minLength: 1, default: 'password' },
      },
      required: ['loginUrl', 'username', 'password'],
    },
    token: {
      properties: { loginUrl: url('URL that accepts the token'), token: secret('Login token'), tokenField: { type: 'string', minLength: 1, default: 'token' } },
      required: ['loginUrl', 'token'],
    },
  }),
  'custom-oauth': variants('Custom OAuth 2.0', {
    authorization_code: {
      properties: {
        clientId: text('Client id'),
        clientSecret: secret('Client secret'),
        authorizationUrl: url('Authorization endpoint'),
        tokenUrl: url('Token endpoint'),
        scopes: { type: 'array', items: { type: 'string' }, default: [] },
        accessToken: secret('Current access token'),
        refreshToken: secret('Refresh token'),
      },
      required: ['clientId', 'clientSecret', 'authorizationUrl', 'tokenUrl'],
    },
    client_credentials: {
      properties: {
        clientId: text('Client id'),
        clientSecret: secret('Client secret'),
        tokenUrl: url('Token endpoint'),
        scopes: { type: 'array', items: { type: 'string' }, default: [] },
      },
      required: ['clientId', 'clientSecret', 'tokenUrl'],
    },
  }),
  'webhook-signing': WEBHOOK_SIGNING,
};

/** The header names each vendor signs with, as the vendors spell them (lookups are case-insensitive). */
export const HEADERS = {
  stripe: 'Stripe-Signature',
  github: 'X-Hub-Signature-256',
  slackSignature: 'X-Slack-Signature',
  slackTimestamp: 'X-Slack-Request-Timestamp',
  shopify: 'X-Shopify-Hmac-Sha256',
  twilio: 'X-Twilio-Signature',
} as const;

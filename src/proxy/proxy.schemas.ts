import { z } from '../openapi/zod';

/** Query of GET /dashboards/proxy; `url` is checked by the service so a missing one gets its own code (url_required). */
export const ProxyQuery = z.object({
  url: z.string().optional().openapi({ description: 'A `proxy+<service>:<type>://<id>` reference from a record, e.g. `proxy+twilio:recording://RE…`' }),
  connection: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ description: "The name of the connection to fetch through; required when the organization has several of the service's type" }),
  format: z.string().min(1).max(16).optional().openapi({ description: 'A media format the reference type offers (twilio:recording: mp3 or wav)' }),
});
export type ProxyQuery = z.output<typeof ProxyQuery>;

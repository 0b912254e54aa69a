/**
 * The kind names of the sources that receive pushes (ingest routes, the
 * sensors page), apart from their implementations so naming them loads no
 * parser (the implementations load on first use, see ./index.ts).
 */
export const ECOWITT_INGEST_KIND = 'ecowitt_ingest';
export const HTTP_WEBHOOK_KIND = 'http_webhook';

/**
 * A notice's deep link (`/zones/front_lawn`, from the app root) as an
 * absolute URL under RAINCHECK_PUBLIC_URL, for channels that open a browser
 * (ntfy's Click, e-mail, chat). Null when the service does not know where
 * the owner opens it: those channels then carry no link rather than a wrong one.
 */
export function absoluteLink(publicUrl: string | null, link: string): string | null {
  if (!publicUrl) return null;
  return new URL(link.replace(/^\/+/, ''), publicUrl).href;
}

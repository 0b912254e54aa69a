import { EXPIRED_RETURN_TO, returnPathFrom, returnToCookie } from './return-to';

/** The browser side of return-to.ts: the cookie read and written through `document`. */

/** Remembers `page` when it is one to return to; otherwise forgets any older one. */
export function rememberReturnPath(page: string): void {
  document.cookie = returnPathFrom(returnToCookie(page)) !== '' ? returnToCookie(page) : EXPIRED_RETURN_TO;
}

/** Reads and forgets the remembered page. */
export function takeReturnPath(): string {
  const page = returnPathFrom(document.cookie);
  document.cookie = EXPIRED_RETURN_TO;
  return page;
}

import { md5 } from 'js-md5';

/**
 * MD5 of a string's UTF-8 bytes, as lower-case hex. OpenSprinkler's API takes
 * the MD5 of the device password (`password_md5`); Web Crypto has no MD5, so
 * the wizard hashes what the owner types here (js-md5) and never sends the
 * plain password.
 */
export function md5Hex(text: string): string {
  return md5(text);
}

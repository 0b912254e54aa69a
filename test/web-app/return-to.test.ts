import { returnPathFrom, returnToCookie, RETURN_TO_COOKIE } from '../../web/app/lib/return-to';
import { RETURN_TO_COOKIE as SERVER_COOKIE, returnPathOf } from '../../server/src/auth/return-to';

describe('the page to return to after signing in', () => {
  it('reads a remembered zone, history or settings page from the cookies', () => {
    expect(returnPathFrom(`service_session=abc; ${RETURN_TO_COOKIE}=zones%2Ffront_lawn`)).toBe(
      'zones/front_lawn',
    );
    expect(returnPathFrom(`${RETURN_TO_COOKIE}=history`)).toBe('history');
    expect(returnPathFrom(`${RETURN_TO_COOKIE}=settings%2Faccount; other=1`)).toBe('settings/account');
    expect(returnPathFrom(returnToCookie('zones'))).toBe('zones');
  });

  it('lands on the dashboard when nothing usable is remembered', () => {
    for (const cookies of [
      '',
      'service_session=abc',
      `${RETURN_TO_COOKIE}=`,
      `${RETURN_TO_COOKIE}=login`,
      `${RETURN_TO_COOKIE}=setup`,
      `${RETURN_TO_COOKIE}=zones%2Fa%2Fb`,
      `${RETURN_TO_COOKIE}=nowhere`,
      `${RETURN_TO_COOKIE}=https%3A%2F%2Fevil.example%2Fzones`,
      `${RETURN_TO_COOKIE}=%2F%2Fevil.example%2Fzones`,
      `${RETURN_TO_COOKIE}=zones%2F..%2F..%2Fapi`,
      `${RETURN_TO_COOKIE}=%E0%A4%A`,
    ]) {
      expect([cookies, returnPathFrom(cookies)]).toEqual([cookies, '']);
    }
  });

  it('agrees with the server on the cookie and on which pages are remembered', () => {
    expect(SERVER_COOKIE).toBe(RETURN_TO_COOKIE);
    for (const path of [
      '/zones',
      '/zones/front_lawn',
      '/history',
      '/tuning',
      '/settings',
      '/settings/account',
    ]) {
      const page = returnPathOf(path);
      expect(page).not.toBeNull();
      expect(returnPathFrom(returnToCookie(page as string))).toBe(page);
    }
    for (const path of ['/', '/login', '/setup', '/setup/account', '/site/photos/a.jpg', '/zones/a/b']) {
      expect([path, returnPathOf(path)]).toEqual([path, null]);
    }
  });
});

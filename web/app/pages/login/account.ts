/**
 * Checks on a new owner account the browser can make before asking the
 * service (the login page's setup form and the wizard's account step). The
 * password policy itself is the server's: its 400 message is shown as sent.
 * Pure (unit-tested).
 */

export interface NewAccount {
  username: string;
  password: string;
  confirm: string;
}

export type AccountErrors = Partial<Record<keyof NewAccount, string>>;

/** The server's rule (server/src/auth/auth-service.ts): 1-64 letters, digits or . _ @ - */
const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

export function validateNewAccount(account: NewAccount): AccountErrors {
  const errors: AccountErrors = {};
  const username = account.username.trim();
  if (username === '') errors.username = 'Enter a username.';
  else if (!USERNAME.test(username)) errors.username = 'Use 1-64 letters, digits or . _ @ - (no spaces).';
  if (account.password === '') errors.password = 'Enter a password.';
  if (account.confirm !== account.password) errors.confirm = 'The two passwords do not match.';
  return errors;
}

export function hasErrors(errors: object): boolean {
  return Object.values(errors).some((v) => v !== undefined && v !== '');
}

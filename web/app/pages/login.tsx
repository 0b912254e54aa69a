import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';
import { api } from '../lib/api';
import type { AuthStatus } from '../lib/auth';
import { hasErrors, validateNewAccount, type AccountErrors, type NewAccount } from './login/account';
import { AccountFields } from './login/account-fields';
import './login/login.css';

/**
 * /login (spec 4.9, 5): creates the owner account while none exists, else
 * signs in. A visitor who already has access (Home Assistant's ingress
 * identity, a trusted network, sign-in off) is told so instead of being asked
 * to sign in a second time.
 */
export default function LoginPage({ status, onSignedIn }: { status: AuthStatus; onSignedIn: () => void }) {
  return (
    <div class="login-page">
      <div class="card login-card">
        <div class="login-brand">
          <img src="icon.png" alt="" width={40} height={40} />
          <span>Raincheck</span>
        </div>
        {!status.setup_complete ? (
          <SetupForm status={status} onSignedIn={onSignedIn} />
        ) : status.authenticated ? (
          <SignedIn />
        ) : (
          <SignInForm onSignedIn={onSignedIn} />
        )}
      </div>
    </div>
  );
}

function SignedIn() {
  return (
    <>
      <h1>You are signed in</h1>
      <p>This browser already has access to Raincheck; there is nothing to sign in to.</p>
      <a class="button primary" href="./" data-route="">
        Go to the dashboard
      </a>
    </>
  );
}

function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('auth/login', { method: 'POST', json: { username: username.trim(), password } });
      onSignedIn();
    } catch (err) {
      setError(err);
      setPassword('');
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <h1>Sign in</h1>
      <ErrorNotice error={error} title="Not signed in" />
      <div class="field">
        <label for="login-username">Username</label>
        <input
          id="login-username"
          name="username"
          type="text"
          autoComplete="username"
          autoCapitalize="none"
          spellcheck={false}
          required
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="login-password">Password</label>
        <input
          id="login-password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </div>
      <button
        type="submit"
        class="primary login-submit"
        disabled={busy || username.trim() === '' || password === ''}
      >
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function SetupForm({ status, onSignedIn }: { status: AuthStatus; onSignedIn: () => void }) {
  const [account, setAccount] = useState<NewAccount>({ username: '', password: '', confirm: '' });
  const [errors, setErrors] = useState<AccountErrors>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = validateNewAccount(account);
    setErrors(found);
    if (hasErrors(found)) {
      const first = (Object.keys(found) as (keyof NewAccount)[])[0];
      if (first) document.getElementById(`setup-${first}`)?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // The service answers with a session cookie: the new owner is signed in.
      await api('auth/setup', {
        method: 'POST',
        json: { username: account.username.trim(), password: account.password },
      });
      onSignedIn();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <h1>Create the owner account</h1>
      <p class="muted">
        Creating this account switches sign-in on: from then on only the owner, signed in, can see and change
        Raincheck.
      </p>
      <ErrorNotice error={error} title="The account was not created" />
      <AccountFields idPrefix="setup" value={account} errors={errors} onChange={setAccount} disabled={busy} />
      <button type="submit" class="primary login-submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create account'}
      </button>
      {status.authenticated && (
        <p class="login-alt">
          <a href="./" data-route="">
            Not now: go to the dashboard
          </a>
        </p>
      )}
      <p class="login-alt">
        First time here?{' '}
        <a href="setup" data-route="setup">
          Run the setup wizard
        </a>{' '}
        (it can create the account at the end).
      </p>
    </form>
  );
}

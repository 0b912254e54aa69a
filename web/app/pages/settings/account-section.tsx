import { useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { Link } from '../../components/link';
import { api, ApiFailure } from '../../lib/api';
import { useAuth } from '../../lib/auth';
import { navigate } from '../../lib/router';
import { formatDateTime } from '../../lib/time';
import { useYardZone } from '../../lib/yard-time';
import { useApi } from '../../lib/use-api';

/**
 * Settings > Account: who is signed in, sign out, and API tokens (spec 4.9,
 * 5.9): token administration needs a signed-in owner session even when
 * sign-in is not required; a new token is shown exactly once.
 */

interface Session {
  authenticated: boolean;
  via: 'session' | 'token' | 'proxy' | 'trusted_network' | 'auth_disabled' | null;
  username?: string;
  expires_epoch?: number;
  token_name?: string;
  proxy_user?: string;
}

interface ApiToken {
  id: number;
  name: string;
  created_epoch: number;
  last_used_epoch: number | null;
}

export function AccountSection() {
  const auth = useAuth();
  const zone = useYardZone();
  const session = useApi<Session>('auth/session');
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<unknown>(null);

  const signOut = async () => {
    setSigningOut(true);
    setSignOutError(null);
    try {
      await api('auth/logout', { method: 'POST' });
      await auth.reload();
      navigate('login');
    } catch (err) {
      setSignOutError(err);
      setSigningOut(false);
    }
  };

  const s = session.data;
  return (
    <div class="settings-account">
      <section class="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <ErrorNotice error={session.error} title="The session could not be read" />
        {session.loading && !s && <p class="loading">Loading…</p>}
        {s && (
          <div class="spread">
            <p>
              {s.via === 'session' ? (
                <>
                  Signed in as <strong>{s.username}</strong>
                  {s.expires_epoch ? (
                    <span class="muted"> until {formatDateTime(s.expires_epoch, zone)}</span>
                  ) : null}
                  .
                </>
              ) : s.via === 'token' ? (
                <>Using the API token “{s.token_name}”.</>
              ) : s.via === 'proxy' ? (
                <>Signed in through the proxy as {s.proxy_user}.</>
              ) : s.via === 'trusted_network' ? (
                <>Trusted network: no sign-in needed from here.</>
              ) : s.via === 'auth_disabled' || auth.status.mode === 'disabled' ? (
                <>
                  Sign-in is off on this instance: anyone who can reach it may use it, and nobody is signed
                  in.
                  {!auth.status.setup_complete && (
                    <>
                      {' '}
                      <Link to="setup">Create the owner account</Link> to require sign-in.
                    </>
                  )}
                </>
              ) : (
                <>Not signed in.</>
              )}
            </p>
            {s.via === 'session' && (
              <button type="button" onClick={() => void signOut()} disabled={signingOut}>
                {signingOut ? 'Signing out…' : 'Sign out'}
              </button>
            )}
          </div>
        )}
        <ErrorNotice error={signOutError} title="Sign-out failed" />
      </section>
      {s && <TokensCard owner={s.via === 'session'} />}
    </div>
  );
}

/**
 * Tokens need a signed-in owner session (spec 5.9): without one the card says
 * how to get one instead of asking the server and showing its refusal.
 */
function TokensCard({ owner }: { owner: boolean }) {
  const auth = useAuth();
  const zone = useYardZone();
  const tokens = useApi<{ tokens: ApiToken[] }>(owner ? 'auth/tokens' : null);
  const [name, setName] = useState('');
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null);
  const [copyState, setCopyState] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const [status, setStatus] = useState<string | null>(null);
  const tokenRef = useRef<HTMLElement>(null);

  const create = async () => {
    setCreating(true);
    setCreateError(null);
    setStatus(null);
    setCopyState(null);
    try {
      const answer = await api<{ token: string; name?: string }>('auth/tokens', {
        method: 'POST',
        json: { name: name.trim() },
      });
      setCreated({ token: answer.token, name: answer.name ?? name.trim() });
      setName('');
      tokens.reload();
    } catch (err) {
      setCreateError(err);
    } finally {
      setCreating(false);
    }
  };

  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.token);
      setCopyState('Copied to the clipboard.');
    } catch {
      // No clipboard (plain HTTP, permissions): select the text for a manual copy.
      const element = tokenRef.current;
      const selection = window.getSelection();
      if (element && selection) {
        const range = document.createRange();
        range.selectNodeContents(element);
        selection.removeAllRanges();
        selection.addRange(range);
      }
      setCopyState('The token is selected: press Ctrl+C (or ⌘C) to copy it.');
    }
  };

  const revoke = async (token: ApiToken) => {
    setRevokeError(null);
    setStatus(null);
    try {
      await api(`auth/tokens/${token.id}`, { method: 'DELETE' });
      setStatus(`Revoked the token “${token.name}”. Anything using it no longer has access.`);
      setConfirming(null);
      if (created && created.name === token.name) setCreated(null);
      tokens.reload();
    } catch (err) {
      setRevokeError(err);
    }
  };

  const refused =
    !owner ||
    (tokens.error instanceof ApiFailure &&
      (tokens.error.code === 'setup_required' || tokens.error.status === 401 || tokens.error.status === 403));

  return (
    <section class="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p class="muted settings-lead">
        A token lets Home Assistant or a script call the API (<code>Authorization: Bearer &lt;token&gt;</code>
        ). Only a hash is stored: a new token is shown once.
      </p>
      {(tokens.error || refused) && (
        <>
          {!refused && <ErrorNotice error={tokens.error} title="Tokens are not available" />}
          {refused && (
            <p class="notice notice-info" data-testid="tokens-need-owner">
              Tokens belong to the owner account and need a signed-in owner session, even when sign-in is not
              required.{' '}
              {auth.status.setup_complete
                ? 'Sign in with the owner account to manage them. '
                : 'This instance has no owner account yet: create one first. '}
              <Link to="login">Go to sign in</Link>
              {!auth.status.setup_complete && (
                <>
                  {' '}
                  or <Link to="setup">set up the owner account</Link>
                </>
              )}
              .
            </p>
          )}
        </>
      )}
      {!tokens.error && !refused && (
        <>
          <form
            class="settings-token-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim() !== '') void create();
            }}
          >
            <div class="field">
              <label for="token-name">Token name</label>
              <input
                id="token-name"
                value={name}
                maxLength={64}
                autoComplete="off"
                aria-describedby="token-name-help"
                onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
              />
              <p class="help" id="token-name-help">
                What will use it, e.g. “ha-integration”. 1–64 characters.
              </p>
            </div>
            <button type="submit" class="primary" disabled={creating || name.trim() === ''}>
              {creating ? 'Creating…' : 'Create token'}
            </button>
          </form>
          <ErrorNotice error={createError} title="The token was not created" />
          {created && (
            <div class="notice notice-warn settings-new-token" role="status">
              <p>
                <strong>New token “{created.name}”.</strong> Copy it now: it will not be shown again.
              </p>
              <div class="settings-token-row">
                <code data-testid="new-token" ref={tokenRef}>
                  {created.token}
                </code>
                <button type="button" onClick={() => void copy()}>
                  Copy
                </button>
              </div>
              {copyState && <p class="muted">{copyState}</p>}
              <button type="button" class="settings-linkish" onClick={() => setCreated(null)}>
                I have copied it: hide the token
              </button>
            </div>
          )}
          <div role="status" aria-live="polite">
            {status && <p class="notice notice-ok">{status}</p>}
          </div>
          <ErrorNotice error={revokeError} title="The token was not revoked" />
          {tokens.data && tokens.data.tokens.length === 0 && <p class="muted">No tokens yet.</p>}
          {tokens.data && tokens.data.tokens.length > 0 && (
            <ul class="settings-token-list">
              {tokens.data.tokens.map((token) => (
                <li key={token.id}>
                  <div class="spread">
                    <div>
                      <strong>{token.name}</strong>
                      <div class="muted settings-small">
                        created {formatDateTime(token.created_epoch, zone)} · last used{' '}
                        {token.last_used_epoch === null
                          ? 'never'
                          : formatDateTime(token.last_used_epoch, zone)}
                      </div>
                    </div>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke ${token.name}`}
                      onClick={() => setConfirming(token.id)}
                    >
                      Revoke
                    </button>
                  </div>
                  {confirming === token.id && (
                    <div class="notice notice-warn settings-confirm" role="group" aria-label="Confirm revoke">
                      <p>Revoke “{token.name}”? Anything using it loses access at once.</p>
                      <div class="row">
                        <button type="button" class="primary" onClick={() => void revoke(token)}>
                          Confirm revoke
                        </button>
                        <button type="button" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </div>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

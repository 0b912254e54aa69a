import type { AuthStatus } from '../lib/auth';
export default function LoginPage(_props: { status: AuthStatus; onSignedIn: () => void }) {
  return <h1>Sign in</h1>;
}

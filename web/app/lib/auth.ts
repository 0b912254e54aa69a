import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** GET /auth/status (spec 4.9). */
export interface AuthStatus {
  mode: 'disabled' | 'required';
  setup_complete: boolean;
  authenticated: boolean;
}

export interface AuthState {
  status: AuthStatus;
  /** Re-reads the status (after login, logout, account setup). */
  reload(): Promise<unknown>;
}

export const AuthContext = createContext<AuthState>({
  status: { mode: 'disabled', setup_complete: false, authenticated: false },
  reload: () => Promise.resolve(),
});
export const useAuth = (): AuthState => useContext(AuthContext);

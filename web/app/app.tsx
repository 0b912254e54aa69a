import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from './components/error-notice';
import { Layout } from './components/layout';
import { api, onUnauthorized } from './lib/api';
import { AuthContext, type AuthStatus } from './lib/auth';
import { appPath } from './lib/base';
import { lazyPage } from './lib/lazy';
import { rememberReturnPath, takeReturnPath } from './lib/remembered-page';
import { navigate, useRoute, type Route } from './lib/router';
import { UnitsContext, type UnitSystem } from './lib/units';
import { YardZoneContext } from './lib/yard-time';
import DashboardPage from './pages/dashboard';

const ZonesPage = lazyPage(() => import('./pages/zones'));
const ZonePage = lazyPage<{ slug: string }>(() => import('./pages/zone'));
const SchedulesPage = lazyPage(() => import('./pages/schedules'));
const HistoryPage = lazyPage(() => import('./pages/history'));
const TuningPage = lazyPage(() => import('./pages/tuning'));
const DevicesPage = lazyPage(() => import('./pages/devices'));
const SettingsPage = lazyPage<{ section: string | null; onUnitsChange: (units: UnitSystem) => void }>(
  () => import('./pages/settings'),
);
const LoginPage = lazyPage<{ status: AuthStatus; onSignedIn: () => void }>(() => import('./pages/login'));
const WizardPage = lazyPage(() => import('./pages/wizard'));

const TITLES: Record<Route['page'], string> = {
  dashboard: 'Dashboard',
  zones: 'Zones',
  zone: 'Zone',
  schedules: 'Schedules',
  history: 'History',
  tuning: 'Tuning',
  devices: 'Devices & Sensors',
  settings: 'Settings',
  login: 'Sign in',
  setup: 'Set up',
  not_found: 'Not found',
};

/** Signed out: remember the page (zones, history, tuning, settings) for after the sign-in, then go. */
function sendToLogin(): void {
  if (appPath() !== 'login') rememberReturnPath(appPath());
  navigate('login', true);
}

interface DeploymentConfig {
  deployment?: {
    units?: UnitSystem;
    timezone?: string | null;
    location?: { lat?: number; lon?: number };
  };
}

/** The yard's zone before a page has a snapshot: the configured one, else the offline lookup at the location. */
async function yardZoneOf(config: DeploymentConfig): Promise<string | null> {
  const deployment = config.deployment;
  if (deployment?.timezone) return deployment.timezone;
  const { lat, lon } = deployment?.location ?? {};
  if (typeof lat !== 'number' || typeof lon !== 'number') return null;
  const found = await api<{ timezone?: string | null }>(`location/timezone?lat=${lat}&lon=${lon}`);
  return found.timezone ?? null;
}

/** The wizard check runs once per page load, not on every return to the dashboard. */
let setupChecked = false;

export function App() {
  const route = useRoute();
  const [status, setStatus] = useState<AuthStatus | null>(null);
  const [statusError, setStatusError] = useState<unknown>(null);
  // Null until the config says: a page drawn before would show a metric owner imperial figures
  // (and turn the service's metric sentences into inches) for as long as the config takes.
  const [units, setUnits] = useState<UnitSystem | null>(null);
  const [yardZone, setYardZone] = useState<string | null>(null);

  const loadStatus = () =>
    api<AuthStatus>('auth/status')
      .then((value) => {
        setStatus(value);
        setStatusError(null);
      })
      .catch(setStatusError);

  useEffect(() => {
    void loadStatus();
    return onUnauthorized(() => {
      void loadStatus();
      sendToLogin();
    });
  }, []);

  const signedIn = status !== null && (status.mode === 'disabled' || status.authenticated);
  useEffect(() => {
    if (!signedIn) return;
    api<DeploymentConfig>('config')
      .then(
        (config) => {
          setUnits(config.deployment?.units === 'metric' ? 'metric' : 'imperial');
          return yardZoneOf(config);
        },
        () => {
          // No config yet (a fresh install) or none readable: the default system.
          setUnits('imperial');
          return null;
        },
      )
      .then(setYardZone)
      .catch(() => undefined);
  }, [signedIn]);

  useEffect(() => {
    document.title = `${TITLES[route.page]} · Raincheck`;
  }, [route.page]);

  // A fresh install has no config yet: its dashboard would be empty, so the first visit opens the wizard.
  useEffect(() => {
    if (!signedIn || route.page !== 'dashboard' || setupChecked) return;
    setupChecked = true;
    api<{ config_present?: boolean }>('wizard/state')
      .then((state) => state.config_present === false && navigate('setup', true))
      .catch(() => undefined);
  }, [signedIn, route.page]);

  useEffect(() => {
    if (status && !signedIn && route.page !== 'login' && route.page !== 'setup') sendToLogin();
  }, [status, signedIn, route.page]);

  if (statusError) return <ErrorNotice error={statusError} title="Raincheck cannot be reached" />;
  if (!status || (signedIn && units === null))
    return (
      <p class="loading" aria-busy="true">
        Loading…
      </p>
    );

  const page = (() => {
    switch (route.page) {
      case 'login':
        return (
          <LoginPage
            status={status}
            onSignedIn={() => {
              void loadStatus().then(() => navigate(takeReturnPath(), true));
            }}
          />
        );
      case 'setup':
        return <WizardPage />;
      case 'dashboard':
        return <DashboardPage />;
      case 'zones':
        return <ZonesPage />;
      case 'zone':
        return <ZonePage slug={route.slug} />;
      case 'schedules':
        return <SchedulesPage />;
      case 'history':
        return <HistoryPage />;
      case 'tuning':
        return <TuningPage />;
      case 'devices':
        return <DevicesPage />;
      case 'settings':
        return <SettingsPage section={route.section} onUnitsChange={setUnits} />;
      case 'not_found':
        return (
          <section>
            <h1>Page not found</h1>
            <p>There is no page at “{route.path}”.</p>
          </section>
        );
    }
  })();

  const bare = route.page === 'login' || (route.page === 'setup' && !signedIn);
  return (
    <AuthContext.Provider value={{ status, reload: loadStatus }}>
      <UnitsContext.Provider value={units ?? 'imperial'}>
        <YardZoneContext.Provider value={yardZone}>
          {bare ? <main id="main">{page}</main> : <Layout route={route}>{page}</Layout>}
        </YardZoneContext.Provider>
      </UnitsContext.Provider>
    </AuthContext.Provider>
  );
}

import { useId, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import { configWithName, type RenameTarget } from './devices-model';

/**
 * Rename for a gateway, controller or flow meter: the display name lives in
 * the config, so this reads /config, sets the name and PUTs it back whole (the
 * path the page's Remove takes). The id is never touched.
 */
export function ConfigRename({
  target,
  name,
  what,
  onChanged,
}: {
  target: RenameTarget;
  name: string | null;
  what: string;
  onChanged: () => void;
}) {
  const id = useId();
  const [value, setValue] = useState(name ?? '');
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rename = async () => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const next = configWithName(await api('config'), target, value);
      if (next === null) setNote(`${what} is not in the configuration (it cannot be renamed here).`);
      else {
        await api('config', { method: 'PUT', json: next });
        onChanged();
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form
        class="device-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void rename();
        }}
      >
        <label for={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={value}
          maxLength={80}
          placeholder={`blank shows the id`}
          onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy}>
          Rename
        </button>
      </form>
      {note && <p class="muted small">{note}</p>}
      {error !== null && <ErrorNotice error={error} title={`${what} could not be renamed`} />}
    </>
  );
}

import type { AccountErrors, NewAccount } from './account';

/**
 * Username, password and confirmation for a new owner account (the login
 * page's setup form and the wizard's account step). Labels are exact: the
 * end-to-end tests find the inputs by them.
 */
export function AccountFields(props: {
  idPrefix: string;
  value: NewAccount;
  errors: AccountErrors;
  onChange: (next: NewAccount) => void;
  disabled?: boolean;
}) {
  const { value, errors } = props;
  const field = (key: keyof NewAccount, label: string, type: 'text' | 'password', autoComplete: string) => {
    const id = `${props.idPrefix}-${key}`;
    const error = errors[key];
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input
          {...({ type } as object)}
          id={id}
          name={key === 'confirm' ? 'confirm-password' : key}
          value={value[key]}
          autoComplete={autoComplete}
          autoCapitalize={key === 'username' ? 'none' : undefined}
          spellcheck={false}
          disabled={props.disabled}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onInput={(e) => props.onChange({ ...value, [key]: (e.currentTarget as HTMLInputElement).value })}
        />
        {error && (
          <div class="field-error" id={`${id}-error`}>
            {error}
          </div>
        )}
      </div>
    );
  };
  return (
    <>
      {field('username', 'Username', 'text', 'username')}
      {field('password', 'Password', 'password', 'new-password')}
      {field('confirm', 'Confirm password', 'password', 'new-password')}
    </>
  );
}

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='it'][callee.property.name=/^(only|skip)$/]",
          message: 'No focused or skipped tests.',
        },
        {
          selector: "CallExpression[callee.object.name='describe'][callee.property.name=/^(only|skip)$/]",
          message: 'No focused or skipped tests.',
        },
      ],
    },
  },
  {
    // The web app runs in the browser (web/tsconfig.json type-checks it with the DOM library).
    files: ['web/app/**/*.ts', 'web/app/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

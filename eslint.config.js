// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/generated/**',
      '**/node_modules/**',
      '.data/**',
      // the SQL migrations; the migration runner's own source (packages/db-tools/src/migrations) is linted
      'prisma/*/migrations/**',
      'coverage/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  { files: ['**/cli/**', 'scripts/**', 'bench/**', 'packages/db-tools/**'], rules: { 'no-console': 'off' } },
  { files: ['apps/*/web/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);

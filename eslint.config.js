// ESLint: JavaScript's and typescript-eslint's recommended rules, type-aware where it catches real
// bugs (floating promises, awaiting non-promises). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'schemas/', 'test/fixtures/', 'out/', '.scratch/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Template literals in messages name our own ${{ }} syntax.
      'no-template-curly-in-string': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
      },
    },
  },
);

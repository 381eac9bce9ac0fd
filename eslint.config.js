// ESLint (flat config) with typescript-eslint. Type-aware rules are limited to the promise
// rules that catch real bugs in a CLI that must never drop an in-flight request, and the two that
// keep a hint object out of plain strings in src/. The layering is
// scripts/check-architecture.mjs's alone; the one import rule here flags a heavy module imported
// straight into the --help path while typing (the checker follows that path transitively).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['build/', 'node_modules/', 'test/fixtures/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test()/describe() return promises the runner awaits itself.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Only the case that changes behaviour: a promise returned un-awaited from inside try/catch.
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // A terminal sanitizer matches control characters by design.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // A hint (src/hint.ts) is an object: rendered with renderHint or nested in hint`…`, never put
    // into a plain template or added to a string, where it would print "[object Object]".
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowAny: true, allowBoolean: true, allowNullish: true, allowNumber: true, allowRegExp: true }],
      '@typescript-eslint/restrict-plus-operands': ['error', { allowAny: true, allowNumberAndString: true }],
    },
  },
  // Layer order, purity of tasks/ and protocol/ and the process global: scripts/check-architecture.mjs.
  {
    // The --help path (check:architecture follows it transitively; this flags the direct case).
    files: ['src/bin.ts', 'src/main.ts', 'src/context.ts', 'src/cli/program.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@modelcontextprotocol/*', 'zod', 'zod/*', '@inquirer/*', 'ora', 'conf'],
              allowTypeImports: true,
              message: '--help must not load it: use await import() where it is needed.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read parsed JSON and assert exact human output (spaces included).
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-regex-spaces': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // CommonJS that replaces a dependency's file in the bundle (scripts/build.mjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

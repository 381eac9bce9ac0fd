// "No command, only global options → help": main reads the global options from the program's own
// definitions (cli/program.ts), not from a second list. Every global option the program declares
// counts, --version does not, and anything else is a command line for commander to judge.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgram, onlyGlobalOptions } from '../../../src/cli/program.js';
import type { Context } from '../../../src/context.js';

const program = buildProgram('0.0.0', () => ({}) as Context, () => {}, { writeOut: () => {}, writeErr: () => {} });

describe('onlyGlobalOptions', () => {
  test('every global option the program declares, with --home taking its value either way', () => {
    for (const argv of [[], ['--json'], ['--no-color', '--no-input'], ['-v'], ['--verbose', '--stored-auth-only'], ['--home', '/tmp/x', '--json'], ['--home=/tmp/x']]) {
      assert.equal(onlyGlobalOptions(program, argv), true, argv.join(' '));
    }
  });

  test('each declared global option (but --version) is recognised: a new one needs no second list', () => {
    for (const o of program.options) {
      if (o.long === '--version') continue;
      const argv = o.required ? [o.long!, 'value'] : [o.long!];
      assert.equal(onlyGlobalOptions(program, argv), true, argv.join(' '));
    }
  });

  test('a command, a version request, an unknown flag or a value on a plain flag is not "only global options"', () => {
    for (const argv of [['list'], ['--json', 'list'], ['-V'], ['--version'], ['--jsn'], ['--json=1'], ['-vv'], ['--home', '/tmp/x', 'get']]) {
      assert.equal(onlyGlobalOptions(program, argv), false, argv.join(' '));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { succeeded, toExecution } from '../../sandbox/execution.js';

const base = { v: 2, type: 'result', id: 'a'.repeat(32) };

describe('toExecution', () => {
  it('reads a well-formed reply', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const execution = toExecution(
      {
        ...base,
        stdout: 'hi\n',
        stdoutBytes: 3,
        result: { type: 'DataFrame', text: 'table', shape: [2, 3] },
        figures: [{ png: png.toString('base64'), width: 400, height: 300 }],
        reaped: 2,
      },
      5,
    );
    expect(execution).toMatchObject({ stdout: 'hi\n', stdoutBytes: 3, durationMs: 5, timedOut: false });
    expect(execution.result).toEqual({ type: 'DataFrame', text: 'table', shape: [2, 3] });
    expect(execution.figures[0]?.png.equals(png)).toBe(true);
    expect(execution.stderr).toContain('stopped 2 processes');
    expect(succeeded({ ...base })).toBe(true);
  });

  it('takes a figure as bytes, the way an attachment delivers it', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const execution = toExecution({ ...base, figures: [{ png, width: 4, height: 3 }] }, 1);
    expect(execution.error).toBeUndefined();
    expect(execution.figures[0]?.png).toBe(png);
  });

  it.each([
    ['a figure without fields', { figures: [{}] }],
    ['a figure that is not base64', { figures: [{ png: '%%%', width: 1, height: 1 }] }],
    ['an error without a traceback', { error: { name: 'X', value: 'y' } }],
    ['a result that is a string', { result: 'True' }],
    ['a negative byte count', { stdoutBytes: -1 }],
    ['a field the driver never sends', { admin: true }],
    ['eleven figures', { figures: Array.from({ length: 11 }, () => ({ png: '', width: 1, height: 1 })) }],
  ])('turns a malformed reply (%s) into an error of the cell', (_, fields) => {
    const execution = toExecution({ ...base, ...fields }, 1);
    expect(execution.error?.name).toBe('KernelProtocolError');
    expect(execution.error?.value).toMatch(/malformed/);
    expect(execution.figures).toEqual([]);
    expect(succeeded({ ...base, ...fields })).toBe(false);
  });

  it('refuses a reply of another kind or version', () => {
    expect(toExecution({ ...base, type: 'failure', message: 'bad request' }, 1).error?.name).toBe(
      'KernelProtocolError',
    );
    expect(toExecution({ ...base, v: 1 }, 1).error?.name).toBe('KernelProtocolError');
    expect(toExecution(null, 1).error?.name).toBe('KernelProtocolError');
  });
});

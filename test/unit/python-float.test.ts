import { describe, expect, it } from 'vitest';
import { pythonFloat } from '../../src/eval/python-float.js';

// Every expectation here was checked against CPython 3.11's float().
describe('pythonFloat', () => {
  it.each([
    [' 3.5 ', 3.5],
    ['\t3.5\n', 3.5],
    ['1e3', 1000],
    ['1.5e-3', 0.0015],
    ['+1', 1],
    ['.5', 0.5],
    ['5.', 5],
    ['1_000', 1000],
    ['1e1_0', 1e10],
    ['1_000.5', 1000.5],
    ['1e400', Number.POSITIVE_INFINITY],
    ['inf', Number.POSITIVE_INFINITY],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-iNF', Number.NEGATIVE_INFINITY],
    ['١٢', 12], // Arabic-Indic digits
    ['٣٤.٦٥', 34.65],
    ['𝟙𝟚', 12], // mathematical double-struck digits, outside the BMP
    ['\u30001', 1], // an ideographic space, stripped
    ['\u00a01 ', 1], // a no-break space, stripped
  ])('reads %j as %d, as Python does', (text, value) => {
    expect(pythonFloat(text)).toBe(value);
  });

  it('reads nan in any case, with a sign', () => {
    expect(pythonFloat('nan')).toBeNaN();
    expect(pythonFloat('-NaN')).toBeNaN();
  });

  it.each([
    '',
    '  ',
    '0x10',
    '0b1',
    '1__000',
    '_1',
    '1_',
    '1_.5',
    '1._5',
    '.',
    '1e',
    'e1',
    '1 000',
    '1,5',
    '\x1c1', // ASCII, and isspace() in Python, but float() does not strip it
    '\u180e1', // no longer a space since Unicode 6.3
    '3.14⚠',
    'infinit',
  ])('refuses %j, where Python raises ValueError', (text) => {
    expect(pythonFloat(text)).toBeUndefined();
  });

  it('differs from Number() where Python and JavaScript differ', () => {
    expect(Number('')).toBe(0);
    expect(pythonFloat('')).toBeUndefined();
    expect(Number('0x10')).toBe(16);
    expect(pythonFloat('0x10')).toBeUndefined();
    expect(Number('1_000')).toBeNaN();
    expect(pythonFloat('1_000')).toBe(1000);
  });
});

/**
 * Python's `float(text)` for a string, as DABench's published scorer relies on it (eval_closed_form.py
 * compares answers with `abs(float(a) - float(b)) < 1e-6`): what it accepts and the number it reads, or
 * undefined where Python raises ValueError. JavaScript's `Number()` differs on both sides: it reads
 * '' and '  ' as 0 and accepts '0x10', '0b1' and 'Infinity' only in that spelling, where Python refuses
 * the first four and reads 'inf', 'nan', 'INFINITY', '1_000' and '١٢' (Arabic-Indic digits).
 *
 * Followed from CPython's float_from_string_inner and PyOS_string_to_double: every non-ASCII whitespace
 * character becomes a space and every Unicode decimal digit (category Nd) its ASCII digit, then
 * leading and trailing ASCII whitespace is stripped, an underscore is allowed only between two digits, and
 * the rest must be `[sign] (digits [. digits] | . digits) [e [sign] digits]` or `[sign] inf|infinity|nan`
 * in any case. Python reads decimal strings correctly rounded, as `Number()` does, so the value read is
 * the same double. Known difference: the Unicode version of Node's regular expressions may lag
 * Python's, so a digit or space added in a newer Unicode version may be read differently.
 */

/**
 * The non-ASCII characters of Python's str.isspace() (Py_UNICODE_ISSPACE), which CPython turns into
 * a space. ASCII ones are kept as they are, and only ' ', \t, \n, \v, \f and \r are stripped:
 * float('\x1c1') raises although '\x1c'.isspace().
 */
const NON_ASCII_SPACE = /[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
const DECIMAL_DIGIT = /\p{Nd}/u;
const DIGITS = String.raw`\d(?:_?\d)*`;
const DECIMAL = new RegExp(`^[+-]?(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?$`);
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * The ASCII digit of a Unicode decimal digit: Unicode encodes every Nd digit in a run of ten from 0
 * to 9 (a stability guarantee), and runs may sit side by side, so the digit is its distance from the
 * start of the contiguous Nd stretch, modulo 10.
 */
function asciiDigit(character: string): string {
  let start = character.codePointAt(0) ?? 0;
  while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
  return String(((character.codePointAt(0) ?? 0) - start) % 10);
}

/** The text as CPython hands it to its parser: Unicode spaces as ' ', Unicode digits as ASCII. */
function toAscii(text: string): string {
  return [...text]
    .map((character) => {
      if (NON_ASCII_SPACE.test(character)) return ' ';
      if (/[0-9]/.test(character) || !DECIMAL_DIGIT.test(character)) return character;
      return asciiDigit(character);
    })
    .join('');
}

/** `float(text)` in Python: the number, or undefined where Python raises ValueError. */
export function pythonFloat(text: string): number | undefined {
  const ascii = toAscii(text).replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
  const special = SPECIAL.exec(ascii);
  if (special) {
    const value = special[2]?.toLowerCase() === 'nan' ? Number.NaN : Number.POSITIVE_INFINITY;
    return special[1] === '-' ? -value : value;
  }
  return DECIMAL.test(ascii) ? Number(ascii.replaceAll('_', '')) : undefined;
}

/** Which column builder reads a column of a given kind (see column-builder.ts). */
import type { ColumnEncoding } from '../column-kind.js';
import type { ColumnBuilder } from './column-builder.js';
import type { EncodeOptions } from './encode-chunk.js';
import { BooleanBuilder, FloatBuilder, IntegerBuilder, MicrosBuilder } from './number-builders.js';
import { DriverValueBuilder, TextBuilder } from './text-builders.js';

export type { ColumnBuilder } from './column-builder.js';

export function columnBuilder(encoding: ColumnEncoding, options: EncodeOptions, capacity: number): ColumnBuilder {
  switch (encoding.kind) {
    case 'integer':
      return new IntegerBuilder(encoding, options, capacity);
    case 'float':
      return new FloatBuilder(encoding, options, capacity);
    case 'decimal':
      return options.exactDecimals
        ? new TextBuilder(encoding, options, capacity)
        : new FloatBuilder(encoding, options, capacity);
    case 'boolean':
      return new BooleanBuilder(encoding, options, capacity);
    case 'date':
    case 'datetime':
    case 'time':
      return new MicrosBuilder(encoding, options, capacity);
    case 'text':
    case 'json':
      return new TextBuilder(encoding, options, capacity);
    default:
      return new DriverValueBuilder(encoding, options, capacity);
  }
}

/**
 * A small protobuf reader for what the tests need of OTLP's ExportTraceServiceRequest
 * (opentelemetry/proto/collector/trace/v1): resources with their attributes, and spans with their ids,
 * parent, name, kind, attributes, events and status. Written from the .proto field numbers, independent of
 * the exporter's own encoder, so a wrong encoding shows.
 */
export type SpanValue = string | number | boolean | string[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 3 client. */
  kind: number;
  attributes: Record<string, SpanValue>;
  events: Array<{ name: string; attributes: Record<string, SpanValue> }>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, SpanValue>;
}

type Field = { number: number; wire: number; value: bigint | Buffer };

/** The fields of one message, in order; length-delimited ones as their bytes. */
function fields(bytes: Buffer): Field[] {
  const found: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('protobuf: truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) found.push({ number, wire, value: varint() });
    else if (wire === 1) {
      found.push({ number, wire, value: bytes.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      found.push({ number, wire, value: bytes.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      found.push({ number, wire, value: bytes.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`protobuf: wire type ${wire} is not used by OTLP traces`);
    if (at > bytes.length) throw new Error('protobuf: field runs past the message');
  }
  return found;
}

const bytesOf = (list: Field[], number: number): Buffer[] =>
  list.filter((field) => field.number === number && Buffer.isBuffer(field.value)).map((field) => field.value as Buffer);
const first = (list: Field[], number: number): Buffer | undefined => bytesOf(list, number)[0];
const text = (list: Field[], number: number): string => first(list, number)?.toString('utf8') ?? '';
const integer = (list: Field[], number: number): number => {
  const value = list.find((field) => field.number === number)?.value;
  return typeof value === 'bigint' ? Number(value) : 0;
};

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue.values 1), kvlist 6, bytes 7. */
function anyValue(bytes: Buffer): SpanValue {
  const [field] = fields(bytes);
  if (!field) return '';
  if (field.number === 1) return (field.value as Buffer).toString('utf8');
  if (field.number === 2) return field.value === 1n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
  if (field.number === 4) return (field.value as Buffer).readDoubleLE(0);
  if (field.number === 5) return bytesOf(fields(field.value as Buffer), 1).map((item) => String(anyValue(item)));
  return (field.value as Buffer).toString('hex');
}

/** KeyValue: key 1, value 2. */
function attributes(list: Buffer[]): Record<string, SpanValue> {
  const result: Record<string, SpanValue> = {};
  for (const item of list) {
    const pair = fields(item);
    const value = first(pair, 2);
    result[text(pair, 1)] = value ? anyValue(value) : '';
  }
  return result;
}

/**
 * ExportTraceServiceRequest.resource_spans 1 -> ResourceSpans { resource 1 { attributes 1 }, scope_spans 2 }
 * -> ScopeSpans { scope 1, spans 2 } -> Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6,
 * attributes 9, events 11 { name 2, attributes 3 }, status 15 { message 2, code 3 } }.
 */
export function decodeTraceRequest(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(fields(body), 1)) {
    const outer = fields(resourceSpans);
    const resource = attributes(bytesOf(fields(first(outer, 1) ?? Buffer.alloc(0)), 1));
    for (const scopeSpans of bytesOf(outer, 2)) {
      for (const encoded of bytesOf(fields(scopeSpans), 2)) {
        const span = fields(encoded);
        const status = fields(first(span, 15) ?? Buffer.alloc(0));
        spans.push({
          traceId: first(span, 1)?.toString('hex') ?? '',
          spanId: first(span, 2)?.toString('hex') ?? '',
          parentSpanId: first(span, 4)?.toString('hex') ?? '',
          name: text(span, 5),
          kind: integer(span, 6),
          attributes: attributes(bytesOf(span, 9)),
          events: bytesOf(span, 11).map((event) => {
            const parts = fields(event);
            return { name: text(parts, 2), attributes: attributes(bytesOf(parts, 3)) };
          }),
          status: { code: integer(status, 3), message: text(status, 2) },
          resource,
        });
      }
    }
  }
  return spans;
}

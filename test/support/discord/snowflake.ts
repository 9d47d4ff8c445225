/**
 * Discord ids: 64-bit snowflakes written as decimal strings, the milliseconds since the Discord
 * epoch (2015-01-01) in the top 42 bits. discord.js reads `createdTimestamp` from them with BigInt,
 * so ids the stand-in hands out (and ids tests pick) must be decimal strings.
 */

/** 2015-01-01T00:00:00.000Z, in milliseconds since the Unix epoch. */
export const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** Makes snowflakes that are unique and strictly increasing, as Discord's are within one worker. */
export class SnowflakeGenerator {
  private lastMs = 0;
  private increment = 0;

  next(nowMs = Date.now()): string {
    const ms = Math.max(nowMs, this.lastMs);
    this.increment = ms === this.lastMs ? this.increment + 1 : 0;
    if (this.increment > 0xfff) {
      // 4,096 ids in one millisecond: borrow the next millisecond rather than repeat an id.
      return this.next(ms + 1);
    }
    this.lastMs = ms;
    const id = (BigInt(ms - DISCORD_EPOCH_MS) << 22n) | (1n << 17n) | BigInt(this.increment);
    return id.toString();
  }
}

/** When a snowflake was made, in milliseconds since the Unix epoch. */
export function snowflakeTimestampMs(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH_MS;
}

/** True for a decimal snowflake string, the only id shape Discord (and discord.js) accepts. */
export function isSnowflake(id: string): boolean {
  return /^\d{1,20}$/.test(id);
}

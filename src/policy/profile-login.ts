/**
 * How tally reaches a profile's login (`view-profile.ts`): its password is derived from the deployment's secret
 * (TALLY_PSEUDONYM_KEY) and the profile's name, so no file holds it and every replica computes the same one; its
 * URL is tally's own database URL with that login, and the profile's schema as the one its names resolve in.
 */
import { createHmac } from 'node:crypto';
import { isPostgresUrl } from '../db/open-database.js';

export function profilePassword(secret: string, profile: string): string {
  return createHmac('sha256', secret).update(`tally profile login:${profile}`).digest('hex').slice(0, 32);
}

/** `url` (tally's account) as the profile's login, reading the profile's schema. */
export function profileUrl(url: string, profile: string, secret: string): string {
  const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
  parsed.username = profile;
  parsed.password = profilePassword(secret, profile);
  if (isPostgresUrl(url)) {
    parsed.searchParams.delete('search_path');
    parsed.searchParams.set('schema', profile);
  } else {
    parsed.pathname = `/${profile}`;
  }
  return parsed.toString();
}

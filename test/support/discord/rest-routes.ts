/**
 * The REST route table and route matching: templates like `/channels/:channelId/messages` against
 * decoded paths, and the patterns tests use for `callsTo` / `failNext` (`'POST /channels/:id/messages'`,
 * `'/webhooks/*\/*'`, or a RegExp tested against `"<METHOD> <route>"`).
 */
import { applicationRoutes } from './application-routes.js';
import { channelRoutes } from './channel-routes.js';
import { interactionRoutes } from './interaction-routes.js';
import type { RouteDefinition } from './rest-context.js';
import { threadRoutes } from './thread-routes.js';

export const ROUTES: RouteDefinition[] = [
  ...applicationRoutes,
  ...channelRoutes,
  ...threadRoutes,
  ...interactionRoutes,
];

/** A route to match calls: `'POST /channels/:id/messages'`, `'/channels/{id}/typing'` (any method), or a RegExp. */
export type RoutePattern = string | RegExp;

/** `params` when the path's segments fit the template's (`:name`, `{name}` and `*` take any one segment). */
function fit(template: string, segments: string[]): Record<string, string> | undefined {
  const parts = template.split('/').filter((part) => part !== '');
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] ?? '';
    const name = /^:(.+)$/.exec(part)?.[1] ?? /^\{(.+)\}$/.exec(part)?.[1] ?? (part === '*' ? '*' : undefined);
    if (name !== undefined) params[name] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}

export type RouteMatch =
  | { kind: 'found'; definition: RouteDefinition; params: Record<string, string> }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'none' };

/** The first definition whose template fits `segments` (literal routes such as `/users/@me` come first in the table). */
export function matchRoute(method: string, segments: string[]): RouteMatch {
  const allowed: string[] = [];
  for (const definition of ROUTES) {
    const params = fit(definition.template, segments);
    if (!params) continue;
    if (definition.method === method) return { kind: 'found', definition, params };
    allowed.push(definition.method);
  }
  return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' };
}

/** Whether a call (`method`, decoded `route`) matches a test's pattern. */
export function routeMatches(pattern: RoutePattern, method: string, route: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(`${method} ${route}`);
  const [first = '', second] = pattern.trim().split(/\s+/, 2);
  const wantedMethod = second === undefined ? undefined : first.toUpperCase();
  const template = second ?? first;
  if (wantedMethod !== undefined && wantedMethod !== method) return false;
  return (
    fit(
      template,
      route.split('/').filter((part) => part !== ''),
    ) !== undefined
  );
}

/**
 * Closes a stand-in's WebSocket with the close handshake (SDK clients report a connection cut
 * without one as an error, logged into later tests), cutting it only if the client does not answer
 * within a second.
 */
import type { WebSocket } from 'ws';

export function closeGracefully(client: WebSocket): Promise<void> {
  if (client.readyState === client.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => client.terminate(), 1000);
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    if (client.readyState === client.OPEN) client.close(1001, 'stand-in closing');
  });
}

/**
 * Slack hears "received" for a message once tally has written it down. Bolt acknowledges an Events API event before
 * its listeners run; the receiver wrapped here holds that acknowledgement in the event's async context instead, the
 * listener that turns the event into a message takes it (`take`, handed on as `Inbound.received`), and the router
 * calls it once the inbox holds the message on the replicas the store waits for. An event no listener takes is
 * acknowledged when Bolt is done with it. Slack redelivers an event it has no acknowledgement for within 3 seconds,
 * so a write still going after `deadlineMs` is acknowledged then, with a warning. Commands and interactions keep
 * Bolt's own acknowledgement (their listeners call `ack`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../../src/base/logger.js';

interface Held {
  ack: () => void;
  taken: boolean;
}

export class HeldAcks {
  private readonly scope = new AsyncLocalStorage<Held>();

  constructor(
    private readonly logger: Logger,
    private readonly deadlineMs = 2_500,
  ) {}

  /** The receiver, passing events to the app with their acknowledgement held. */
  wrap(receiver: Receiver): Receiver {
    return {
      // Bolt's receivers use nothing of the app but processEvent.
      init: (app: App) => receiver.init({ processEvent: (event) => this.process(app, event) } as App),
      start: (...args) => receiver.start(...args),
      stop: (...args) => receiver.stop(...args),
    };
  }

  /** The acknowledgement of the event being handled, for whoever writes it down; undefined outside one or once taken. */
  take(): (() => void) | undefined {
    const held = this.scope.getStore();
    if (!held || held.taken) return undefined;
    held.taken = true;
    const timer = setTimeout(() => {
      this.logger.warn(
        { deadlineMs: this.deadlineMs },
        'a message took too long to write down: acknowledged to Slack before it was',
      );
      held.ack();
    }, this.deadlineMs);
    return () => {
      clearTimeout(timer);
      held.ack();
    };
  }

  private async process(app: App, event: ReceiverEvent): Promise<void> {
    if (event.body.type !== 'event_callback') return app.processEvent(event);
    let acknowledged = false;
    const held: Held = {
      taken: false,
      ack: () => {
        if (acknowledged) return;
        acknowledged = true;
        Promise.resolve(event.ack()).catch((error: unknown) =>
          this.logger.warn({ err: error }, 'could not acknowledge a Slack event'),
        );
      },
    };
    try {
      // Bolt's own call, before the listeners, does nothing; a reply with a body would be Slack's to see.
      const deferred = async (response?: unknown) => {
        if (response === undefined || acknowledged) return;
        acknowledged = true;
        await event.ack(response);
      };
      await this.scope.run(held, () => app.processEvent({ ...event, ack: deferred }));
    } finally {
      if (!held.taken) held.ack();
    }
  }
}

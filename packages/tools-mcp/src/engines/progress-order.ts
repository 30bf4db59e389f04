/**
 * The SDK hands notifications to their handlers a microtask late but settles responses at
 * once, so the last progress notification of a call (sent just before its result) would find
 * its handler gone. While a call listens to progress, responses are delivered one microtask
 * later, after the notifications that preceded them.
 *
 * SDK internals (checked against 1.32.2 and 2.4.0): `Client.connect()` installs its
 * dispatcher as the transport's `onmessage`; it is wrapped here after the handshake. `sdk-internals.test.ts`
 * and the last-progress tests fail if that changes.
 */
export function deliverProgressBeforeResponses<Message extends object, Extra>(connection: {
  readonly transport: { onmessage?: ((message: Message, extra?: Extra) => void) | undefined };
  readonly progressCalls: number;
}): void {
  const transport = connection.transport;
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    if (
      connection.progressCalls > 0 &&
      'id' in message &&
      ('result' in message || 'error' in message)
    ) {
      queueMicrotask(() => deliver(message, extra));
    } else {
      deliver(message, extra);
    }
  };
}

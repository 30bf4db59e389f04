// The part of oidc-provider (which ships no types) that the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Client {
    grantTypeAllowed(type: string): boolean;
  }
  /** The provider: a Koa app whose callback serves every endpoint. */
  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: never[]) => void): this;
  }
  export const errors: {
    InvalidTarget: new () => Error;
    InvalidGrant: new (description: string) => Error;
  };
  export type { Client };
}

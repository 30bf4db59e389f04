import { createRedactor, type Redactor } from '@agcore/tools-core';

/**
 * The secrets one `auth` has seen (tokens, codes, verifiers, client secrets and assertions), so
 * that the transport's redactor takes them out of errors, reports and spans as it takes out
 * the configured headers.
 */
export class AuthSecrets {
  private readonly secrets = new Set<string>();
  private redactor: Redactor | undefined;

  /** Remembers `secret` (a value under 4 characters is ignored, as the redactor does). */
  add(secret: string | undefined): void {
    if (secret === undefined || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.redactor = undefined;
  }

  /** `text` without any secret seen so far. Never throws. */
  redact(text: string): string {
    this.redactor ??= createRedactor(this.secrets);
    return this.redactor(text);
  }
}

const secretsByAuth = new WeakMap<object, AuthSecrets>();

/** The secrets of one `auth` object, shared by every connection made with it. */
export function secretsOf(auth: object): AuthSecrets {
  let secrets = secretsByAuth.get(auth);
  if (secrets === undefined) {
    secrets = new AuthSecrets();
    secretsByAuth.set(auth, secrets);
  }
  return secrets;
}

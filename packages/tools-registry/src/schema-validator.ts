import type { JsonSchema } from '@agcore/tools-core';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { default as addFormatsModule } from 'ajv-formats';

/** Checks arguments; returns `undefined` when they pass, else the validator's words. */
export type ArgumentValidator = (args: unknown) => string | undefined;

type AjvInstance = Ajv | Ajv2019 | Ajv2020;

const ajvOptions: Options = {
  strict: false,
  allErrors: true,
  logger: false,
  // Tools receive exactly what the model sent: no coercion, no defaults written into it.
  coerceTypes: false,
  useDefaults: false,
};

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: AjvInstance) => AjvInstance;

let draft07: Ajv | undefined;
let draft2019: Ajv2019 | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: JsonSchema): AjvInstance {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('2020-12')) {
    draft2020 ??= addFormats(new Ajv2020(ajvOptions)) as Ajv2020;
    return draft2020;
  }
  if (dialect.includes('2019-09')) {
    draft2019 ??= addFormats(new Ajv2019(ajvOptions)) as Ajv2019;
    return draft2019;
  }
  draft07 ??= addFormats(new Ajv(ajvOptions)) as Ajv;
  return draft07;
}

/**
 * Compiles a tool's parameters schema into a validator. Draft-07 is assumed unless `$schema`
 * names 2019-09 or 2020-12.
 *
 * @throws {Error} when ajv cannot compile the schema (the caller reports it).
 */
export function compileValidator(schema: JsonSchema): ArgumentValidator {
  const ajv = ajvFor(schema);
  const dialect = schema.$schema;
  // An unknown or draft-04/06 dialect URI would make ajv look for a meta-schema it lacks.
  const usable =
    typeof dialect === 'string' && !/2019-09|2020-12|draft-07/.test(dialect)
      ? { ...schema, $schema: undefined }
      : schema;
  const validate: ValidateFunction = ajv.compile(usable);
  return (args) => (validate(args) ? undefined : formatErrors(validate.errors ?? []));
}

function formatErrors(errors: readonly ErrorObject[]): string {
  const shown = errors.slice(0, 5).map((error) => {
    const where =
      error.instancePath === ''
        ? 'arguments'
        : `arguments${error.instancePath.replaceAll('/', '.')}`;
    if (error.keyword === 'additionalProperties') {
      return `${where} must not have property '${String(error.params.additionalProperty)}'`;
    }
    if (error.keyword === 'enum') {
      return `${where} must be one of ${JSON.stringify(error.params.allowedValues)}`;
    }
    return `${where} ${error.message ?? 'is invalid'}`;
  });
  const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
  return shown.join('; ') + more;
}

/**
 * Random passwords as GetRandomPassword (and CloudFormation's
 * `GenerateSecretString`) make them: 32 characters by default from lower
 * case, upper case, digits and punctuation, at least one of each included
 * type unless `RequireEachIncludedType` is false, a space only with
 * `IncludeSpace`, and never a character of `ExcludeCharacters`.
 */
import { randomInt } from 'node:crypto';
import { secretErrors } from './store';

export interface PasswordOptions {
  PasswordLength?: number;
  ExcludeCharacters?: string;
  ExcludeLowercase?: boolean;
  ExcludeUppercase?: boolean;
  ExcludeNumbers?: boolean;
  ExcludePunctuation?: boolean;
  IncludeSpace?: boolean;
  RequireEachIncludedType?: boolean;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
/** The punctuation Secrets Manager draws from (the API reference lists these 32). */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

export function generatePassword(options: PasswordOptions): string {
  const length = options.PasswordLength ?? 32;
  if (!Number.isInteger(length) || length < 1 || length > 4096)
    throw secretErrors.invalidParameter('PasswordLength must be between 1 and 4096.');
  if ((options.ExcludeCharacters ?? '').length > 4096)
    throw secretErrors.invalidParameter('ExcludeCharacters can be at most 4096 characters long.');
  const exclude = new Set(options.ExcludeCharacters ?? '');
  const groups = [
    options.ExcludeLowercase ? '' : LOWER,
    options.ExcludeUppercase ? '' : UPPER,
    options.ExcludeNumbers ? '' : DIGITS,
    options.ExcludePunctuation ? '' : PUNCTUATION,
    options.IncludeSpace ? ' ' : '',
  ]
    .map((g) => [...g].filter((c) => !exclude.has(c)).join(''))
    .filter((g) => g.length > 0);
  if (groups.length === 0)
    throw secretErrors.invalidParameter(
      'The password options exclude every character; nothing is left to choose from.',
    );
  const requireEach = options.RequireEachIncludedType !== false;
  if (requireEach && length < groups.length) {
    throw secretErrors.invalidParameter(
      `A password of ${length} characters can't include each of the ${groups.length} required character types.`,
    );
  }
  const all = groups.join('');
  const chars: string[] = [];
  if (requireEach) for (const g of groups) chars.push(g[randomInt(g.length)]!);
  while (chars.length < length) chars.push(all[randomInt(all.length)]!);
  // Shuffle so the required characters are not always first.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

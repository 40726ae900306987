/**
 * Image names are data. A dataset row's `image`, `--env-image` and `--base-image` reach a Docker engine's HTTP
 * API inside a path (`/images/<name>/json`), and dockerode does not escape them: `../../../../etc` was sent as
 * written, the daemon answered with a redirect, and the client followed it to a host the row chose. So every
 * name is checked against the reference grammar of the distribution project (github.com/distribution/reference,
 * `reference.go`) before it is used, and a name that does not match is the row's or the flag's error.
 *
 *   reference   := name [ ":" tag ] [ "@" digest ]
 *   name        := [domain "/"] path-component ["/" path-component]*
 *   domain      := host [":" port]                         host: domain-name | IPv4 | "[" IPv6 "]"
 *   path-component := [a-z0-9]+ (separator [a-z0-9]+)*     separator: "_" | "__" | "." | "-"+
 *   tag         := [\w][\w.-]{0,127}
 *   digest      := algorithm ":" [0-9a-fA-F]{32,}          algorithm: [A-Za-z][A-Za-z0-9]* ([+._-][A-Za-z][A-Za-z0-9]*)*
 *
 * and the name part at most 255 characters.
 */

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = `(?:${DOMAIN_NAME}|${IPV6})(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const NAME_TOTAL_LENGTH_MAX = 255;

/** Why `reference` is not a Docker image reference, or undefined when it is one. */
export function imageReferenceProblem(reference: unknown): string | undefined {
  if (typeof reference !== 'string') return 'an image reference must be a string';
  if (reference.length === 0) return 'an image reference must not be empty';
  // bounded before the expression runs: a hostile row may hold a megabyte here
  if (reference.length > NAME_TOTAL_LENGTH_MAX + 200) return `not an image reference (${reference.length} characters)`;
  const match = REFERENCE.exec(reference);
  if (!match) return `not an image reference (name[:tag][@digest], lower-case path components): ${JSON.stringify(reference.slice(0, 120))}`;
  if (match[1]!.length > NAME_TOTAL_LENGTH_MAX) return `an image name longer than ${NAME_TOTAL_LENGTH_MAX} characters`;
  return undefined;
}

export class ImageReferenceError extends Error {
  constructor(
    readonly reference: string,
    readonly problem: string,
    where: string,
  ) {
    super(`${where}: ${problem}`);
    this.name = 'ImageReferenceError';
  }
}

/** `reference`, or an ImageReferenceError naming `where` it came from (a row, a flag). */
export function checkedImageReference(reference: string, where: string): string {
  const problem = imageReferenceProblem(reference);
  if (problem) throw new ImageReferenceError(reference, problem, where);
  return reference;
}

/**
 * Zulip's errors as values: a code, an HTTP status, extra fields, and the message rendered from a
 * template last. Messages are Zulip's exact English strings.
 */
export interface ZulipError {
  readonly code: string;
  readonly msg: string;
  readonly status: number;
  /** Error-specific keys Zulip adds to the body (`var_name`, `stream`, `allowed_methods` ...). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export function zulipError(
  msg: string,
  code = 'BAD_REQUEST',
  status = 400,
  extra?: Record<string, unknown>,
): ZulipError {
  return extra === undefined ? { code, msg, status } : { code, msg, status, extra };
}

/** The errors many operations share; an operation's own errors are written where they are raised. */
export const errors = {
  badRequest: (msg: string) => zulipError(msg),
  missingArgument: (name: string) =>
    zulipError(`Missing '${name}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: name }),
  invalidJson: (name: string) => zulipError(`${name} is not valid JSON`),
  invalidVar: (name: string, value: unknown) =>
    zulipError(`Bad value for '${name}': ${String(value)}`, 'REQUEST_VARIABLE_INVALID', 400, {
      var_name: name,
      bad_value: value,
    }),
  confusingVar: (a: string, b: string) =>
    zulipError(`Can't decide between '${a}' and '${b}' arguments`, 'REQUEST_CONFUSING_VAR', 400, {
      var_name1: a,
      var_name2: b,
    }),
  unsupportedCombination: (names: readonly string[]) =>
    zulipError(`Unsupported parameter combination: ${names.join(', ')}`, 'BAD_REQUEST', 400, {
      parameters: names.join(', '),
    }),
  insufficientPermission: () => zulipError('Insufficient permission'),
  mustBeAdmin: () => zulipError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL'),
  mustBeOwner: () => zulipError('Must be an organization owner', 'UNAUTHORIZED_PRINCIPAL'),
  notForGuests: () => zulipError('Not allowed for guest users'),
  notForBots: () => zulipError('This endpoint does not accept bot requests.'),
  invalidChannelId: () => zulipError('Invalid channel ID'),
  channelDoesNotExistById: (streamId: number) =>
    zulipError(`Channel with ID '${streamId}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, {
      stream_id: streamId,
    }),
  channelDoesNotExistByName: (name: string) =>
    zulipError(`Channel '${name}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream: name }),
  expectationMismatch: () =>
    zulipError("'old' value does not match the expected value.", 'EXPECTATION_MISMATCH', 400, {
      field_name: 'old',
    }),
  notLoggedIn: () =>
    zulipError('Not logged in: API authentication or user session required', 'UNAUTHORIZED', 401),
  unauthorized: (msg: string) => zulipError(msg, 'UNAUTHORIZED', 401),
  userDeactivated: () => zulipError('Account is deactivated', 'USER_DEACTIVATED', 401),
  realmDeactivated: () => zulipError('This organization has been deactivated', 'REALM_DEACTIVATED', 401),
  notFound: () => zulipError('Not Found', 'BAD_REQUEST', 404),
  methodNotAllowed: (allowed: readonly string[]) =>
    zulipError('Method Not Allowed', '', 405, { allowed_methods: allowed }),
} as const;

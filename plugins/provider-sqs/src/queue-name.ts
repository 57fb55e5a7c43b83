import { createHash } from 'node:crypto';

/** SQS allows at most 80 characters, `.fifo` included. */
export const MAX_QUEUE_NAME_LENGTH = 80;
const FIFO_SUFFIX = '.fifo';
const SUFFIX_LENGTH = 12;

/**
 * The name CloudFormation-style for a queue whose template gives none:
 * `<stack>-<logicalId>-<SUFFIX>`, shortened to fit, `.fifo` for a FIFO queue.
 * The suffix derives from the create's idempotency token, so a retried create
 * names the same queue (CreateQueue then returns it instead of making another).
 */
export function generateQueueName(
  stackName: string,
  logicalId: string,
  idempotencyToken: string,
  fifo: boolean,
): string {
  const suffix = createHash('sha256')
    .update(idempotencyToken)
    .digest('hex')
    .slice(0, SUFFIX_LENGTH)
    .toUpperCase();
  const room = MAX_QUEUE_NAME_LENGTH - (fifo ? FIFO_SUFFIX.length : 0) - suffix.length - 1;
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '');
  let prefix = `${clean(stackName)}-${clean(logicalId)}`;
  if (prefix.length > room) {
    // Keep both parts recognisable: trim the longer one first.
    const stack = clean(stackName);
    const logical = clean(logicalId);
    const half = Math.floor((room - 1) / 2);
    const stackPart =
      stack.length <= half ? stack : stack.slice(0, Math.max(half, room - 1 - logical.length));
    prefix = `${stackPart}-${logical}`.slice(0, room);
  }
  return `${prefix}-${suffix}${fifo ? FIFO_SUFFIX : ''}`;
}

/** The queue name at the end of a queue URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
export function queueNameFromUrl(queueUrl: string): string {
  return queueUrl.replace(/\/+$/, '').split('/').pop() ?? '';
}

/** The account id in a queue URL. */
export function accountFromUrl(queueUrl: string): string {
  const parts = queueUrl.replace(/\/+$/, '').split('/');
  return parts[parts.length - 2] ?? '';
}

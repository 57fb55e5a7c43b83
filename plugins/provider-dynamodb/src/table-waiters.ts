/**
 * Waits with the SDK's waiter machinery (`createWaiter`: immediate first
 * check, then exponential backoff with jitter, an overall deadline, abortable),
 * never fixed sleeps. DynamoDB's own `tableExists` waiter looks at the table's
 * status only; an index being created or deleted keeps the table from taking
 * the next index change, so this one waits for the indexes too.
 */
import {
  DescribeImportCommand,
  DescribeTableCommand,
  waitUntilTableNotExists,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { createWaiter, WaiterState, type WaiterResult } from '@smithy/core/client';

/** Poll every 1 s at first, at most every 10 s, for up to 30 minutes (a large index backfills for long). */
export const WAIT = { minDelay: 1, maxDelay: 10, maxWaitTime: 1800 };

const errorName = (err: unknown) => (err as { name?: string } | null)?.name ?? '';

/** Why a table is not settled yet, or undefined when it and its indexes are ACTIVE. */
export function pendingReason(table: TableDescription): string | undefined {
  if (table.TableStatus !== 'ACTIVE') return `the table is ${table.TableStatus}`;
  const index = [...(table.GlobalSecondaryIndexes ?? []), ...(table.VectorIndexes ?? [])].find(
    (i) => i.IndexStatus !== 'ACTIVE',
  );
  return index ? `index ${index.IndexName} is ${index.IndexStatus}` : undefined;
}

/** Waits until the table and its indexes are ACTIVE; returns the table. Throws with the last status on timeout or abort. */
export async function waitForActive(
  client: DynamoDBClient,
  tableName: string,
  abortSignal?: AbortSignal,
): Promise<TableDescription> {
  let last: TableDescription | undefined;
  let lastReason = 'the table was not found yet';
  const result: WaiterResult = await createWaiter(
    { client, ...WAIT, abortSignal },
    { TableName: tableName },
    async (c, input) => {
      try {
        last = (await c.send(new DescribeTableCommand(input), { abortSignal })).Table;
      } catch (err) {
        // Just after CreateTable the table may not be visible yet.
        if (errorName(err) === 'ResourceNotFoundException') return { state: WaiterState.RETRY };
        throw err;
      }
      if (last?.TableStatus === 'DELETING')
        return { state: WaiterState.FAILURE, reason: 'the table is being deleted' };
      const reason = last ? pendingReason(last) : 'no table in the answer';
      if (!reason) return { state: WaiterState.SUCCESS };
      lastReason = reason;
      return { state: WaiterState.RETRY };
    },
  );
  if (result.state !== WaiterState.SUCCESS)
    throw new Error(`table ${tableName} did not become ACTIVE (${result.state}; last seen: ${lastReason})`);
  return last!;
}

/** Waits until the table no longer exists (DynamoDB's own waiter). */
export async function waitForGone(
  client: DynamoDBClient,
  tableName: string,
  abortSignal?: AbortSignal,
): Promise<void> {
  const result = await waitUntilTableNotExists(
    { client, ...WAIT, abortSignal },
    { TableName: tableName },
  ).catch((err: unknown) => {
    throw new Error(
      `table ${tableName} was not deleted in time: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  if (result.state !== WaiterState.SUCCESS)
    throw new Error(`table ${tableName} was not deleted (${result.state})`);
}

/** Waits until an ImportTable request completes; throws with AWS's failure code and message otherwise. */
export async function waitForImport(
  client: DynamoDBClient,
  importArn: string,
  abortSignal?: AbortSignal,
): Promise<void> {
  let failure = '';
  const result = await createWaiter(
    { client, ...WAIT, abortSignal },
    { ImportArn: importArn },
    async (c, input) => {
      const d = (await c.send(new DescribeImportCommand(input), { abortSignal })).ImportTableDescription;
      if (d?.ImportStatus === 'COMPLETED') return { state: WaiterState.SUCCESS };
      if (d?.ImportStatus === 'FAILED' || d?.ImportStatus === 'CANCELLED') {
        failure = `${d.ImportStatus}${d.FailureCode ? ` (${d.FailureCode})` : ''}${d.FailureMessage ? `: ${d.FailureMessage}` : ''}`;
        return { state: WaiterState.FAILURE };
      }
      return { state: WaiterState.RETRY };
    },
  );
  if (result.state !== WaiterState.SUCCESS)
    throw new Error(`the import into the table did not complete: ${failure || result.state}`);
}

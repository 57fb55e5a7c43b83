/** DynamoDB figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

export const dynamoDbLatency: LatencyFigures = {
  operations: {
    '*': 20,
    CreateTable: 100,
    UpdateTable: 100,
    DeleteTable: 100,
    DescribeTable: 30,
    UpdateTimeToLive: 60,
    UpdateContinuousBackups: 60,
  },
  resourceTypes: { 'AWS::DynamoDB::Table': { create: 15_000, update: 10_000, delete: 15_000 } },
  sources: [
    'DynamoDB data-plane calls: single-digit to tens of milliseconds (AWS: "single-digit millisecond performance at any scale"); control-plane calls tens to a hundred milliseconds (commonly measured)',
    'AWS::DynamoDB::Table: typical CloudFormation stack-event durations (10–20 s for a table to become ACTIVE)',
  ],
};

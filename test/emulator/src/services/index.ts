/**
 * Every service the emulator serves: one module per folder, one line here.
 * Adding a service is a new folder `services/<name>/` and a line in this
 * list (see the README, "Adding a service").
 */
import type { ServiceModule } from '../core/service';
import { cloudControl } from './cloudcontrol';
import { cloudFormation } from './cloudformation';
import { dynamodb } from './dynamodb';
import { ec2 } from './ec2';
import { events } from './events';
import { iam } from './iam';
import { kms } from './kms';
import { lambda } from './lambda';
import { logs } from './logs';
import { s3 } from './s3';
import { secretsManager } from './secretsmanager';
import { sns } from './sns';
import { sqs } from './sqs';
import { ssm } from './ssm';
import { stepFunctions } from './stepfunctions';
import { sts } from './sts';

export const SERVICES: readonly ServiceModule[] = [
  s3,
  sts,
  sqs,
  sns,
  events,
  ssm,
  secretsManager,
  kms,
  cloudFormation,
  ec2,
  iam,
  lambda,
  logs,
  dynamodb,
  stepFunctions,
  cloudControl,
];

/**
 * Forwards the messages of @aws-cdk/toolkit-lib to cdkd's IoHost, so the
 * toolkit's warnings and the app's own output show up like every other cdkd
 * message (on stderr: stdout carries only payloads). Requests take their
 * default response: synthesis never prompts.
 */
import type { IIoHost, IoMessage as ToolkitMessage, IoRequest as ToolkitRequest } from '@aws-cdk/toolkit-lib';
import type { IoHost, LogLevel } from '../util/io-host';

/** Code of every message forwarded from the toolkit; `data.toolkitCode` holds the toolkit's own code. */
export const TOOLKIT_MESSAGE_CODE = 'CDKD_TOOLKIT_MESSAGE';

/** Payload of a forwarded toolkit message. */
export interface ToolkitMessageData {
  /** The toolkit's message code, e.g. `CDK_ASSEMBLY_I1001`. */
  toolkitCode?: string;
  /** The toolkit action that emitted it, e.g. `synth`. */
  action: string;
}

/**
 * Toolkit codes shown at another level than the toolkit suggests: the app's
 * stderr is ordinary output (Node warnings, console.error debugging), not a
 * cdkd error.
 */
const LEVEL_OVERRIDES: Record<string, LogLevel> = {
  CDK_ASSEMBLY_E1002: 'info',
};

const LEVELS: Record<ToolkitMessage<unknown>['level'], LogLevel> = {
  error: 'error',
  result: 'info',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  trace: 'debug',
};

export class ToolkitIoHostAdapter implements IIoHost {
  constructor(private readonly host: IoHost) {}

  async notify(msg: ToolkitMessage<unknown>): Promise<void> {
    const level = (msg.code && LEVEL_OVERRIDES[msg.code]) || LEVELS[msg.level] || 'info';
    const data: ToolkitMessageData = { toolkitCode: msg.code, action: msg.action };
    this.host.notify({ level, code: TOOLKIT_MESSAGE_CODE, message: msg.message, data, time: msg.time });
  }

  async requestResponse<T>(msg: ToolkitRequest<unknown, T>): Promise<T> {
    await this.notify(msg);
    return msg.defaultResponse;
  }
}

#!/usr/bin/env node
'use strict';
// The AWS SDK warns on every run that its releases after January 2027 need
// Node 22. cdkd pins its SDK versions in the lockfile and supports Node 20, so
// the warning says nothing actionable to a cdkd user; set the variable to
// 'false' to see it anyway.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// execute() parses argv, runs the command and reports errors with their exit
// code (exiting the process). When the command succeeds, cdkd exits as soon as
// its output is written: a provider pack may hold timers or sockets open (a
// hook abandoned after its deadline, a provider's keep-alive), and they must
// not keep a CI job running.
require('@oclif/core')
  .execute({ dir: __dirname })
  .then(() => {
    let pending = 2;
    const done = () => {
      if (--pending === 0) process.exit();
    };
    process.stdout.write('', done);
    process.stderr.write('', done);
  });

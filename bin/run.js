#!/usr/bin/env node
'use strict';
// execute() parses argv, runs the command and reports errors with their exit code.
require('@oclif/core').execute({ dir: __dirname });

import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { fieldMessage } from './zod-messages';

// Every schema module imports `z` from here so `.openapi()` metadata is available, and refusals are worded alike.
extendZodWithOpenApi(z);
z.config({ customError: fieldMessage });

export { z };

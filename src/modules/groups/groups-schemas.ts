// Schemas of the groups routes: path parameters and the list query.
import { Type } from '@sinclair/typebox';
import { compile } from '../../validation.js';
import { PageQuery } from '../shared/schemas.js';

export const GroupParams = Type.Object({ id: Type.String({ examples: ['Group_k3v9x'] }) });

export const GroupListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const checkGroupListQuery = compile(GroupListQuery);

// Schemas of the groups routes: path parameters and the list query.
import { Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { GROUP_ID_PATTERN } from '../../model/group.js';
import { compile } from '../../validation.js';

// Another form is 400 Invalid Group Id (after the key check).
export const GroupParams = Type.Object({
  id: Type.String({ pattern: GROUP_ID_PATTERN.source, examples: ['Group_k3v9x'] }),
});

export const GroupListQuery = Type.Object(pageQuery(false), { additionalProperties: false });
export const checkGroupListQuery = compile(Type.Object(pageQuery(true), { additionalProperties: false }));

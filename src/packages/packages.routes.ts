import { readJsonUpload } from '../http/json-upload';
import { PageQuery } from '../http/pagination';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { presentPackage } from './packages.presenter';
import {
  InstallResultSchema,
  PACKAGE_MAX_BYTES,
  PackageParams,
  PackageSchema,
  PackageUpload,
  parsePackageUpload,
  UninstallResultSchema,
} from './packages.schemas';
import type { PackagesService } from './packages.service';

const tags = ['Packages'];

/**
 * Packages: reading needs workflows:view (every role has it); installing and
 * uninstalling need packages:admin, which only roles holding both
 * workflows:admin and dashboards:admin have (they create and delete both).
 * The upload is read by the route itself, up to PACKAGE_MAX_BYTES (gzip
 * allowed), past the API's JSON body limit.
 */
export function registerPackageRoutes(ctx: RouteContext, service: PackagesService, maxBytes = PACKAGE_MAX_BYTES): void {
  ctx.registry.register('PackageUpload', PackageUpload);

  defineRoute(ctx, {
    method: 'get',
    path: '/packages',
    permission: 'workflows:view',
    tags,
    query: PageQuery,
    summary: 'Installed packages by name, each with what it installed (paged)',
    responses: { 200: { description: 'Packages', schema: z.object({ total: z.number().int(), data: z.array(PackageSchema) }) } },
    handler: async ({ auth, query }) => {
      const { total, data } = await service.list(auth.organizationId, query);
      return { status: 200, body: { total, data: data.map(({ pkg, items }) => presentPackage(pkg, items)) } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/packages',
    permission: 'packages:admin',
    tags,
    rawBody: {
      contentTypes: ['application/json'],
      description:
        'A package file (#/components/schemas/Package), or {package, dependencies: [package, …]} (#/components/schemas/PackageUpload); gzip allowed (Content-Encoding: gzip)',
    },
    summary: 'Install a package and the dependencies it needs, all or nothing; a package installed before is updated in place (ids kept by name)',
    responses: {
      201: { description: 'Installed', schema: InstallResultSchema },
      413: { description: `Larger than ${maxBytes} bytes` },
      415: { description: 'Not application/json' },
    },
    handler: async ({ auth }, req) => {
      const upload = parsePackageUpload(await readJsonUpload(req, maxBytes));
      const result = await service.install(auth, upload);
      const present = ({ pkg, items, previousVersion }: (typeof result)['package']) => ({ ...presentPackage(pkg, items), previousVersion });
      return { status: 201, body: { package: present(result.package), dependencies: result.dependencies.map(present), createdTables: result.createdTables } };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/packages/:id',
    permission: 'workflows:view',
    tags,
    params: PackageParams,
    summary: 'One installed package, with what it installed',
    responses: { 200: { description: 'The package', schema: PackageSchema } },
    handler: async ({ auth, params }) => {
      const { pkg, items } = await service.get(auth.organizationId, params.id);
      return { status: 200, body: presentPackage(pkg, items) };
    },
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/packages/:id',
    permission: 'packages:admin',
    tags,
    params: PackageParams,
    summary: 'Uninstall a package (400 package_in_use while another depends on it), and the dependencies nothing needs any more',
    responses: { 200: { description: 'What was removed, and what was kept because something else uses it', schema: UninstallResultSchema } },
    handler: async ({ auth, params }) => ({ status: 200, body: await service.uninstall(auth, params.id) }),
  });
}

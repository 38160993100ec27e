/**
 * Type-checking view of node-hubspot (npm `hubspot` 2.3.14), mapped in tsconfig.node.json `paths`; at run
 * time the tests load the real, unmodified package. Why: the package ships its typings as `.ts` sources
 * (lib/typescript/*.ts), which `skipLibCheck` does not skip; they import `request-promise` without types and
 * re-export interfaces without `export type`, so they fail our strict compiler settings. The signatures
 * below are copied from those typings (index.d.ts, lib/typescript/{contact,timeline,oauth,engagement}.ts; getApiLimit from lib/client.js, untyped there), with
 * `RequestPromise` as the promise it is.
 */
declare module "hubspot" {
  type RequestPromise = Promise<unknown>;

  interface BaseOptions {
    baseUrl?: string;
  }
  interface ApiOptions extends BaseOptions {
    apiKey: string;
  }
  interface AccessTokenOptions extends BaseOptions {
    accessToken: string;
  }
  interface AppOptions extends BaseOptions {
    clientId: string;
    clientSecret: string;
    redirectUri: string;
    refreshToken: string;
  }

  class Contact {
    get(opts?: Record<string, unknown>): RequestPromise;
    getAll(opts?: Record<string, unknown>): RequestPromise;
    // The rest of the v1 contacts methods; addSecondaryEmail and `properties` are not served.
    getRecentlyModified(opts: Record<string, unknown>): RequestPromise;
    getRecentlyCreated(opts: Record<string, unknown>): RequestPromise;
    getByEmail(email: string): RequestPromise;
    getByEmailBatch(email: string[]): RequestPromise;
    getById(number: string, opts?: { property?: string[]; propertyMode?: string; formSubmissionMode?: string; showListMemberships?: boolean }): RequestPromise;
    getByIdBatch(ids: number[]): RequestPromise;
    getByToken(utk: string): RequestPromise;
    delete(id: number): RequestPromise;
    update(id: number, data: object): RequestPromise;
    create(data: object): RequestPromise;
    createOrUpdate(email: string, data: object): RequestPromise;
    updateByEmail(email: string, data: object): RequestPromise;
    createOrUpdateBatch(data: object[]): RequestPromise;
    merge(primaryVid: string, secondaryVid: string): RequestPromise;
    search(query: string, opts?: Record<string, unknown>): RequestPromise;
  }

  class Timeline {
    createEventType(applicationId: number, userId: number, data: object): RequestPromise;
    updateEventType(applicationId: number, eventTypeId: number, data: object): RequestPromise;
    createEventTypeProperty(applicationId: number, eventTypeId: number, userId: number, data: object): RequestPromise;
    updateEventTypeProperty(applicationId: number, eventTypeId: number, propertyId: number, data: object): RequestPromise;
    createTimelineEvent(applicationId: number, eventTypeId: number, data: object): RequestPromise;
  }

  class OAuth {
    getAuthorizationUrl(opts?: object): string;
    getAccessToken(data: { code: string }): RequestPromise;
    refreshAccessToken(): RequestPromise;
    getPortalInfo(token?: string): RequestPromise;
  }

  class Engagement {
    create(data: object): RequestPromise;
    get(opts?: object): RequestPromise;
    update(engagementId: string, data: object): RequestPromise;
    getRecentlyModified(opts?: object): RequestPromise;
    getAssociated(objectType: string, objectId: number, opts?: object): RequestPromise;
    getCallDispositions(): RequestPromise;
  }

  class Hubspot {
    constructor(options?: ApiOptions | AccessTokenOptions | AppOptions);
    refreshAccessToken(): RequestPromise;
    getApiLimit(): Promise<unknown>;
    apiRequest(options: { method?: string; path?: string; overlapUrl?: string; body?: unknown; qs?: Record<string, unknown>; form?: Record<string, unknown> | string }): RequestPromise;
    contacts: Contact;
    timelines: Timeline;
    oauth: OAuth;
    engagements: Engagement;
  }

  export default Hubspot;
}

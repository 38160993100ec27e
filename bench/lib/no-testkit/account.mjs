// Figure 15's baseline bundle (bench/lib/build.mjs): what src/http/auth.ts imports of the test kit, as nothing.
// No account is a test account, and the credential statement reads neither the account's type nor its quirks.
export const isTestAccountType = () => false;
export const credentialKitColumns = {};
export const credentialKitJoin = (query) => query;

// Figure 15's baseline bundle (bench/lib/build.mjs): what src/router.ts imports of the test kit, as nothing.
// No fault rule is looked at; every call runs on real time.
export const applyFault = async () => {};
export const accountNow = (_principal, realNow = Date.now()) => realNow;

/* A real shared library that is not an AOTInductor model (no AOTInductorModelContainer* API): the
 * model loader must refuse it after loading it, and unload it and remove its copy. */
int shimgen_not_a_model(void) { return 42; }

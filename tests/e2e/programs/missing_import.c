/* Calls a function no embedder provides: the module must not instantiate. */
void host_thing(void);
int main(void) { host_thing(); return 0; }

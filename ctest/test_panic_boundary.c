/* A panic forced inside every exported function comes back as NC_EINTERNAL
 * (or the function's documented fallback), and the process lives on.
 * panic_calls.inc is generated from the installed header at configure time
 * (gen_panic_calls.py), so every exported function is covered. */
#include "test_util.h"

static int arm(const char *fn) {
    int rc = nczarr_rs_test_inject_panic(fn);
    if (rc != NC_NOERR) {
        fprintf(stderr, "cannot arm the panic hook (%d); is NCZARR_RS_TEST_HOOKS=1 set?\n", rc);
        exit(2);
    }
    return 1;
}
#define ARM(fn) arm(fn)

int main(int argc, char **argv) {
    int map = -1, id = 7;
    size64_t len = 0;
    size_t n = 0;
    char **names = NULL;
    char buf[4];
    char url[4200];
    const char *scratch = argc > 1 ? argv[1] : "/tmp/nczarr_test_panic";
    t_mkdirs(scratch);
    snprintf(url, sizeof url, "%s/ds", scratch);

    OK(nczmap_create(NCZM_MEMORY, "mem://panic", 0, 0, NULL, &map));

    ARM("nczmap_create");  EXPECT(nczmap_create(NCZM_FILE, url, 0, 0, NULL, &id), NC_EINTERNAL);
    CHECK(id == 7); /* no output on failure */
    /* the panic's message is the call's detail */
    CHECK(strncmp(nczarr_rs_last_error(), "nczmap_create: panic: nczarr-rs test hook", 41) == 0);
    ARM("nczmap_open");    EXPECT(nczmap_open(NCZM_MEMORY, "mem://panic", 0, 0, NULL, &id), NC_EINTERNAL);
    ARM("nczmap_exists");  EXPECT(nczmap_exists(map, "/k"), NC_EINTERNAL);
    ARM("nczmap_len");     EXPECT(nczmap_len(map, "/k", &len), NC_EINTERNAL);
    ARM("nczmap_read");    EXPECT(nczmap_read(map, "/k", 0, 1, buf), NC_EINTERNAL);
    ARM("nczmap_write");   EXPECT(nczmap_write(map, "/k", 0, 1, "x"), NC_EINTERNAL);
    ARM("nczmap_search");  EXPECT(nczmap_search(map, "/", &n, &names), NC_EINTERNAL);
    ARM("nczmap_free_names"); EXPECT(nczmap_free_names(0, NULL), NC_EINTERNAL);
    ARM("nczmap_features"); CHECK(nczmap_features(NCZM_FILE) == NCZM_UNIMPLEMENTED);
    ARM("nc_strerror");    CHECK(strcmp(nc_strerror(NC_EBADID), "Unknown Error") == 0);
    ARM("nc_inq_libvers"); CHECK(strcmp(nc_inq_libvers(), "unknown") == 0);
    ARM("nczmap_close");   EXPECT(nczmap_close(map, 1), NC_EINTERNAL);

    /* every export, with zero/NULL arguments */
    {
        int covered = 0;
#include "panic_calls.inc"
        CHECK(covered == PANIC_CALLS_EXPECTED && covered > 100);
        printf("panic boundary: %d exported functions checked\n", covered);
    }

    /* disarmed: everything works again, the map survived */
    OK(nczarr_rs_test_inject_panic(NULL));
    OK(nczmap_write(map, "/k", 0, 1, "x"));
    OK(nczmap_exists(map, "/k"));
    CHECK(strcmp(nc_strerror(NC_EBADID), "NetCDF: Not a valid ID") == 0);
    OK(nczmap_close(map, 1));
    return t_finish("test_panic_boundary");
}

/* Without NCZARR_RS_TEST_HOOKS=1 the panic hook cannot be armed. */
#include "test_util.h"

int main(void) {
    EXPECT(nczarr_rs_test_inject_panic("nczmap_exists"), NC_EPERM);
    EXPECT(nczmap_exists(1, "/k"), NC_EBADID); /* a normal error, no panic */
    return t_finish("test_panic_hook_disabled");
}

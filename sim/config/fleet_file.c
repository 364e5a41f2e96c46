/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fleet_file.c — fleet-only files, for `tarmac replay --fleet` (declared in
 * config.h).
 *
 * The file is parsed once here to see what it holds; a bare {"pools": [...]}
 * is wrapped as a fleet, and a missing workload gets one placeholder class,
 * then the text goes through the full loader (sim_scenario_load_text), so
 * every check and message is the loader's own. Above the loader, not beside
 * it: it calls the loader, and nothing of the loader calls it.
 */
#include "config/config_int.h"

#include "base/fileio_int.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

int sim_scenario_load_fleet_file(sim_scenario *sc, const char *path, tm_diag *diag)
{
    memset(sc, 0, sizeof *sc);
    char *given;
    size_t len;
    int rc = sim__file_read(path, SIM__SCENARIO_MAX_BYTES, &given, &len, diag);
    if (rc != TM_OK)
        return rc;
    int oom;
    cJSON *root = sim__json_parse(given, len + 1, NULL, &oom);
    if (!root && oom) {
        free(given);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    sim__loader L = {path, "", diag, NULL};
    if (root && (rc = sim__json_no_nul(&L, given, len)) != TM_OK) {
        cJSON_Delete(root);
        free(given);
        return rc;
    }
    if (!root || !cJSON_IsObject(root) ||
        (cJSON_GetObjectItemCaseSensitive(root, "workload") &&
         cJSON_GetObjectItemCaseSensitive(root, "fleet"))) {
        /* a whole scenario, or not an object: the loader says what is wrong */
        cJSON_Delete(root);
        rc = sim_scenario_load_text(sc, given, len, path, diag);
        free(given);
        return rc;
    }
    /* Wrap it into a scenario. Every cJSON call that allocates is checked: a
     * piece missing for want of memory would make a different scenario. An
     * item not attached to the tree is still ours to delete. */
    int ok = 1;
    if (cJSON_GetObjectItemCaseSensitive(root, "pools") &&
        !cJSON_GetObjectItemCaseSensitive(root, "fleet")) {
        cJSON *pools = cJSON_DetachItemFromObjectCaseSensitive(root, "pools");
        cJSON *fleet = cJSON_AddObjectToObject(root, "fleet");
        ok = fleet && cJSON_AddItemToObject(fleet, "pools", pools);
        if (!ok)
            cJSON_Delete(pools);
    }
    if (ok && !cJSON_GetObjectItemCaseSensitive(root, "workload")) {
        cJSON *w = cJSON_AddObjectToObject(root, "workload");
        cJSON *arr = w ? cJSON_AddArrayToObject(w, "classes") : NULL;
        cJSON *cls = cJSON_CreateObject();
        cJSON *a = cls ? cJSON_AddObjectToObject(cls, "arrival") : NULL;
        ok = arr && a && cJSON_AddStringToObject(cls, "name", "trace") &&
             cJSON_AddNumberToObject(a, "rate_per_s", 0) &&
             cJSON_AddNumberToObject(cls, "duration", 0) && cJSON_AddItemToArray(arr, cls);
        if (!ok)
            cJSON_Delete(cls);
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        free(given);
        return tm_diag_set(diag, TM_ERR_NOMEM, path, "out of memory");
    }
    rc = sim_scenario_load_text(sc, text, strlen(text), path, diag);
    free(text);
    if (rc == TM_OK) {
        free(sc->json_given); /* keep the file as given, not the wrapped text */
        sc->json_given = given;
    } else {
        free(given);
    }
    return rc;
}

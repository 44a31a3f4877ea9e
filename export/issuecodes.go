package export

import (
	"github.com/cutroom/cutroom/apierr"
	"github.com/cutroom/cutroom/editor"
)

// issueCodes are the API codes of create's rule that the editor state be valid: the refusal
// (422) carries the first validation issue's code, the issue's path as its field and every
// issue in its errors member. The editor's rules name their issues with these codes; they
// become API error codes only here, so they are defined here (a test checks that every
// EDITOR_ code of package editor is in the table).
// TODO(h16 merge): if package editor defines its codes with apierr, use those.
var issueCodes = map[string]apierr.Code{
	editor.CodeSchemaInvalid:             apierr.Define(apierr.Unprocessable, "EDITOR_SCHEMA_INVALID"),
	editor.CodeEffectTypeInvalid:         apierr.Define(apierr.Unprocessable, "EDITOR_EFFECT_TYPE_INVALID"),
	editor.CodeFilterTypeInvalid:         apierr.Define(apierr.Unprocessable, "EDITOR_FILTER_TYPE_INVALID"),
	editor.CodeTransitionTypeInvalid:     apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_TYPE_INVALID"),
	editor.CodeTransitionClipNotAdjacent: apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_CLIP_NOT_ADJACENT"),
	editor.CodeInvalidJSON:               apierr.Define(apierr.Unprocessable, "EDITOR_INVALID_JSON"),
	editor.CodeValueOutOfRange:           apierr.Define(apierr.Unprocessable, "EDITOR_VALUE_OUT_OF_RANGE"),
	editor.CodeItemIDMismatch:            apierr.Define(apierr.Unprocessable, "EDITOR_ITEM_ID_MISMATCH"),
	editor.CodeAssetIDMismatch:           apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_ID_MISMATCH"),
	editor.CodeTransitionIDMismatch:      apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_ID_MISMATCH"),
	editor.CodeTrackIDDuplicate:          apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ID_DUPLICATE"),
	editor.CodeTrackItemNotFound:         apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ITEM_NOT_FOUND"),
	editor.CodeTrackItemDuplicate:        apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ITEM_DUPLICATE"),
	editor.CodeItemNotInTrack:            apierr.Define(apierr.Unprocessable, "EDITOR_ITEM_NOT_IN_TRACK"),
	editor.CodeTrackItemsOverlap:         apierr.Define(apierr.Unprocessable, "EDITOR_TRACK_ITEMS_OVERLAP"),
	editor.CodeKeyframeOutOfRange:        apierr.Define(apierr.Unprocessable, "EDITOR_KEYFRAME_OUT_OF_RANGE"),
	editor.CodeAnimationTooLong:          apierr.Define(apierr.Unprocessable, "EDITOR_ANIMATION_TOO_LONG"),
	editor.CodeAssetNotFound:             apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_NOT_FOUND"),
	editor.CodeAssetTypeMismatch:         apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_TYPE_MISMATCH"),
	editor.CodeAssetDeleted:              apierr.Define(apierr.Unprocessable, "EDITOR_ASSET_DELETED"),
	editor.CodeCropOutOfRange:            apierr.Define(apierr.Unprocessable, "EDITOR_CROP_OUT_OF_RANGE"),
	editor.CodeCropEmpty:                 apierr.Define(apierr.Unprocessable, "EDITOR_CROP_EMPTY"),
	editor.CodeTransitionTrackNotFound:   apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_TRACK_NOT_FOUND"),
	editor.CodeTransitionClipNotFound:    apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_CLIP_NOT_FOUND"),
	editor.CodeTransitionClipNotInTrack:  apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_CLIP_NOT_IN_TRACK"),
	editor.CodeTransitionTooLong:         apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_TOO_LONG"),
	editor.CodeTransitionDuplicate:       apierr.Define(apierr.Unprocessable, "EDITOR_TRANSITION_DUPLICATE"),
	editor.CodeCaptionEntryRange:         apierr.Define(apierr.Unprocessable, "EDITOR_CAPTION_ENTRY_RANGE"),
	editor.CodeChartSeriesDuplicate:      apierr.Define(apierr.Unprocessable, "EDITOR_CHART_SERIES_DUPLICATE"),
	editor.CodeChartSeriesUnknown:        apierr.Define(apierr.Unprocessable, "EDITOR_CHART_SERIES_UNKNOWN"),
	editor.CodeChartPieEmpty:             apierr.Define(apierr.Unprocessable, "EDITOR_CHART_PIE_EMPTY"),
	editor.CodeChartAnimationTooLong:     apierr.Define(apierr.Unprocessable, "EDITOR_CHART_ANIMATION_TOO_LONG"),
	editor.CodeTemplateNodeIDDuplicate:   apierr.Define(apierr.Unprocessable, "EDITOR_TEMPLATE_NODE_ID_DUPLICATE"),
}

// issueCode returns the API code of a validation issue's code.
func issueCode(name string) apierr.Code {
	if c, ok := issueCodes[name]; ok {
		return c
	}
	return issueCodes[editor.CodeSchemaInvalid] // not reached: the table has every editor code
}

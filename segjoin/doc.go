// Package segjoin joins video segments rendered apart (by render.Pipeline.RenderSegment,
// in this process or on cluster workers) into one file without re-encoding: the segments'
// compressed video samples in order, plus a soundtrack mixed once for the whole timeline
// and encoded by the encoders' audio path, into one MP4 (one sample description, faststart)
// or WebM (cues at every keyframe), written by encode's own muxers (encode.NewRemuxWriter),
// so the joined file carries exactly the boxes, colour tags and layout of a one-piece render.
//
// Decision: segments are ordinary files of the export's container (an MP4 with one H.264
// track, a WebM with one VP9/VP8 track) whose timestamps start at 0; the frames they hold
// in the export ([First, End)) travel beside them (Part). Reading them back needs nothing
// but mp4ff (the sample tables) and ebml-go (the clusters), both dependencies already, so a
// segment can be checked, moved through an object store and joined by a process that never
// saw it being encoded.
//
// Decision: the decoder configuration is checked, not trusted. Before a sample is written,
// every segment's configuration (VideoConfig: the SPS and PPS of its avcC for H.264; the
// profile, bit depth, colour space, range, subsampling and frame size of its first VP9
// keyframe's header, or the VP8 keyframe's size) must equal the first segment's, else Join
// fails with ErrConfigMismatch naming the segment and the difference: one sample
// description must fit every sample. Each segment must start with a keyframe and hold
// exactly its frames, each presentation time once; the joined timestamps are the segment's
// own shifted by its First, so decode times increase strictly and presentation times cover
// 0..frames-1 without a gap.
//
// Decision (memory): an MP4 segment's samples are read one at a time through its sample
// table; a WebM segment is parsed whole (ebml-go builds the element tree), so memory holds
// one segment's compressed video at a time, never the whole export.
package segjoin
